package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * One provider's connection to Redis: the {@link ScriptRunner} (Lettuce's native
 * connection when the factory is Lettuce's, else {@code RedisTemplate}; opened when the
 * provider is initialized or on first use, and replaced if it was closed under it), the
 * script set and the release channels (classic pub/sub, or sharded pub/sub on a Redis 7+
 * Cluster), and the waiters' registration in a lock's wake-up set.
 * <p>
 * Connecting can take as long as the client's timeouts allow (Lettuce: its connect
 * timeout, then a handshake bounded by its command timeout), so it runs on a thread of
 * its own and every caller waits for it only until its own deadline; a caller that gives
 * up leaves the connection to be made for the next one.
 */
final class RedisLockSession {

	private static final Log logger = LogFactory.getLog(RedisLockSession.class);

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisLockSession.class.getClassLoader());

	/**
	 * A registration outlives the wait by this much, so that a release at the very
	 * deadline still publishes.
	 */
	private static final long REGISTRATION_SLACK_MILLIS = 1000;

	private final RedisConnectionFactory connectionFactory;

	private final ReleaseChannels classicChannels;

	private volatile ReleaseChannels channels;

	private volatile boolean sharded;

	private volatile RedisLockScripts scripts = RedisLockScripts.classic();

	private volatile @Nullable ScriptRunner runner;

	private volatile Duration callTimeout;

	private @Nullable CompletableFuture<ScriptRunner> connecting; // guarded by this

	private boolean closed; // guarded by this

	RedisLockSession(RedisConnectionFactory connectionFactory, Duration callTimeout) {
		this.connectionFactory = connectionFactory;
		this.callTimeout = callTimeout;
		this.classicChannels = new ReleaseChannels(
				(wake) -> new ListenerContainerPubSub(connectionFactory, callTimeout, wake));
		this.channels = this.classicChannels;
	}

	void setCallTimeout(Duration callTimeout) {
		this.callTimeout = callTimeout;
	}

	/**
	 * A deadline {@code distlock.call-timeout} from now.
	 * @return the deadline on the {@link System#nanoTime()} scale
	 */
	long callDeadline() {
		return System.nanoTime() + this.callTimeout.toNanos();
	}

	/**
	 * The deadline of a call made for an acquisition: the attempt's, which the core never
	 * lets pass before it starts one; an attempt used again after it (a backend's own
	 * test) gets a call timeout from now.
	 * @param attempt the attempt
	 * @return the deadline on the {@link System#nanoTime()} scale
	 */
	long attemptDeadline(LockAttempt attempt) {
		long own = attempt.deadlineNanos();
		long fresh = callDeadline();
		return (fresh - own > 0) ? fresh : own;
	}

	/**
	 * Starts connecting in the background unless a connection is open or being made, and
	 * returns at once; a failure is left for the next caller, which tries again.
	 */
	void connectInBackground() {
		ScriptRunner current = this.runner;
		if (current == null || !current.isOpen()) {
			connection();
		}
	}

	/**
	 * The runner, connecting on first use; a caller waits for the connection until its
	 * deadline.
	 * @param deadlineNanos when to give up waiting for the connection
	 * @return the runner
	 * @throws QueryTimeoutException if the connection was not made by the deadline
	 */
	ScriptRunner runner(long deadlineNanos) {
		ScriptRunner current = this.runner;
		if (current != null && current.isOpen()) {
			return current;
		}
		try {
			return connection().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException("Could not connect to Redis", ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new QueryTimeoutException("Could not connect to Redis in time (still trying)");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new QueryTimeoutException("Interrupted while connecting to Redis", ex);
		}
	}

	/**
	 * The connection being made or made, started on a thread of its own if there is none
	 * or the last one failed or was closed.
	 */
	private CompletableFuture<ScriptRunner> connection() {
		synchronized (this) {
			Assert.state(!this.closed, "RedisLockProvider is closed");
			CompletableFuture<ScriptRunner> connection = this.connecting;
			if (connection == null || connection.isCompletedExceptionally()
					|| (connection.isDone() && !connection.join().isOpen())) {
				// a thread of its own that ends with the connection made: connecting is
				// rare
				connection = CompletableFuture.supplyAsync(this::connect, (task) -> {
					Thread thread = new Thread(task, "distlock-redis-connect");
					thread.setDaemon(true);
					thread.start();
				});
				this.connecting = connection;
			}
			return connection;
		}
	}

	/**
	 * On the connector thread: replaces a closed runner, and on the first connection
	 * picks the scripts.
	 */
	private ScriptRunner connect() {
		ScriptRunner current = this.runner;
		if (current != null && current.isOpen()) {
			return current;
		}
		boolean first = current == null;
		if (current != null) {
			current.close();
		}
		ScriptRunner lettuce = LETTUCE_PRESENT ? LettuceScriptRunner.of(this.connectionFactory) : null;
		current = (lettuce != null) ? lettuce : new TemplateScriptRunner(this.connectionFactory);
		if (first && lettuce != null) {
			ReleaseChannels sharded = LettuceScriptRunner.shardedChannels(this.connectionFactory, lettuce,
					this.callTimeout);
			if (sharded != null) {
				this.channels = sharded;
				this.sharded = true;
				this.scripts = RedisLockScripts.sharded();
				this.classicChannels.close();
			}
		}
		this.runner = current;
		return current;
	}

	/**
	 * The scripts; get a {@link #runner} first, which picks them on connecting.
	 * @return the scripts
	 */
	RedisLockScripts scripts() {
		return this.scripts;
	}

	/**
	 * Registers the waiter in the lock's wake-up set for as long as it waits (so releases
	 * publish), then listens on the lock's channel; closing the subscription leaves both
	 * (the wake-up set without waiting for a reply). Both steps end by the wait's
	 * deadline (the channel's confirmation also within {@code distlock.call-timeout}); if
	 * Redis cannot register the waiter, or does not confirm the channel in time, the
	 * waiter polls.
	 */
	ReleaseSubscription subscribe(LockAttempt attempt, Duration waitLeft, Runnable listener) {
		long now = System.nanoTime();
		// a wait of centuries has no nanosecond count: the attempt's deadline is the
		// nearer one then
		long waitNanos = (waitLeft.getSeconds() < Integer.MAX_VALUE) ? waitLeft.toNanos() : Long.MAX_VALUE;
		long deadline = now + Math.min(waitNanos, attempt.deadlineNanos() - now);
		RedisLockKeys keys = RedisLockKeys.of(attempt.key(), attempt.type());
		byte[][] wakeup = RedisArgs.keys(keys.wakeupKey());
		byte[] owner = RedisArgs.bytes(attempt.owner());
		ScriptRunner runner;
		RedisLockScripts scripts;
		try {
			runner = runner(deadline);
			scripts = this.scripts;
			runner.run(scripts.waitRegister, wakeup,
					new byte[][] { owner, RedisArgs.digits(RedisArgs.millis(waitLeft) + REGISTRATION_SLACK_MILLIS) },
					deadline);
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not register " + attempt + " as a waiter; it polls", ex);
			}
			return ReleaseSubscription.NONE;
		}
		ReleaseSubscription channel = this.channels.subscribe(keys.channel(), listener,
				Math.min(deadline - now, this.callTimeout.toNanos()) + now);
		return new ReleaseSubscription() {

			@Override
			public boolean isActive() {
				return channel.isActive();
			}

			@Override
			public void close() {
				channel.close();
				runner.send(scripts.waitLeave, wakeup, new byte[][] { owner }, callDeadline(), (failure) -> {
					if (failure != null && logger.isDebugEnabled()) {
						logger.debug("Could not unregister waiter " + attempt, failure);
					}
				});
			}

		};
	}

	/**
	 * Whether the runner sends asynchronously on one connection, so that a script sent
	 * after another runs after it.
	 * @return {@code false} until connected, and through {@code RedisTemplate}
	 */
	boolean sendsInOrder() {
		ScriptRunner current = this.runner;
		return current != null && current.sendsAsynchronously();
	}

	boolean usesShardedPubSub() {
		return this.sharded;
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
