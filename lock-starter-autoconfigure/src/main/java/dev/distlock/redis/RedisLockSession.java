package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * One provider's connection to Redis: the {@link ScriptRunner} (Lettuce's native connection when the factory is
 * Lettuce's, else {@code RedisTemplate}; opened on first use and replaced if it was closed under it), the script set
 * and the release notices (classic pub/sub, or sharded pub/sub on a Redis 7+ Cluster), and the waiters' registration
 * in a lock's wake-up set.
 */
final class RedisLockSession {

	private static final Log logger = LogFactory.getLog(RedisLockSession.class);

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisLockSession.class.getClassLoader());

	private static final Duration SUBSCRIPTION_TIMEOUT = Duration.ofSeconds(2);

	/** A registration outlives the wait by this much, so that a release at the very deadline still publishes. */
	private static final long REGISTRATION_SLACK_MILLIS = 1000;

	private final RedisConnectionFactory connectionFactory;

	private final ReleaseChannels classicChannels;

	private volatile ReleaseNotices channels;

	private volatile RedisLockScripts scripts = RedisLockScripts.classic();

	private volatile @Nullable ScriptRunner runner;

	private boolean closed; // guarded by this

	RedisLockSession(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.classicChannels = new ReleaseChannels(connectionFactory, SUBSCRIPTION_TIMEOUT);
		this.channels = this.classicChannels;
	}

	/**
	 * The runner, connecting on first use.
	 * @return the runner
	 */
	ScriptRunner runner() {
		ScriptRunner current = this.runner;
		if (current != null && current.isOpen()) {
			return current;
		}
		synchronized (this) {
			current = this.runner;
			if (current == null || !current.isOpen()) {
				Assert.state(!this.closed, "RedisLockProvider is closed");
				boolean first = current == null;
				if (current != null) {
					current.close();
				}
				ScriptRunner lettuce = LETTUCE_PRESENT ? LettuceScriptRunner.of(this.connectionFactory) : null;
				current = (lettuce != null) ? lettuce : new TemplateScriptRunner(this.connectionFactory);
				if (first && lettuce != null) {
					ReleaseNotices sharded = LettuceScriptRunner.shardedChannels(this.connectionFactory, lettuce,
							SUBSCRIPTION_TIMEOUT);
					if (sharded != null) {
						this.channels = sharded;
						this.scripts = RedisLockScripts.sharded();
						this.classicChannels.close();
					}
				}
				this.runner = current;
			}
			return current;
		}
	}

	/**
	 * The scripts; call {@link #runner()} first, which picks them on connecting.
	 * @return the scripts
	 */
	RedisLockScripts scripts() {
		return this.scripts;
	}

	/**
	 * Registers the waiter in the lock's wake-up set for as long as it waits (so releases publish), then listens on
	 * the lock's channel; closing the subscription leaves both (the wake-up set without waiting for a reply). If
	 * Redis cannot register it, the waiter polls.
	 */
	ReleaseSubscription subscribe(LockAttempt attempt, Duration waitLeft, Runnable listener) {
		RedisLockKeys keys = RedisLockKeys.of(attempt.key(), attempt.type());
		byte[][] wakeup = RedisArgs.keys(keys.wakeupKey());
		byte[] owner = RedisArgs.bytes(attempt.owner());
		ScriptRunner runner = runner();
		RedisLockScripts scripts = this.scripts;
		try {
			runner.run(scripts.waitRegister, wakeup, owner,
					RedisArgs.digits(RedisArgs.millis(waitLeft) + REGISTRATION_SLACK_MILLIS));
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not register " + attempt + " as a waiter; it polls", ex);
			}
			return ReleaseSubscription.NONE;
		}
		ReleaseSubscription channel = this.channels.subscribe(keys.channel(), listener);
		return new ReleaseSubscription() {

			@Override
			public boolean isActive() {
				return channel.isActive();
			}

			@Override
			public void close() {
				channel.close();
				runner.send(scripts.waitLeave, wakeup, new byte[][] { owner },
						(failure) -> logger.debug("Could not unregister waiter " + attempt, failure));
			}

		};
	}

	/**
	 * Asks the server for a {@code PING}, which writes nothing.
	 * @return the reply
	 */
	@Nullable String ping() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return connection.ping();
		}
	}

	boolean usesShardedPubSub() {
		return this.channels instanceof ShardedReleaseChannels;
	}

	void close() {
		ScriptRunner current;
		synchronized (this) {
			this.closed = true;
			current = this.runner;
		}
		this.channels.close();
		this.classicChannels.close();
		if (current != null) {
			current.close();
		}
	}

}
