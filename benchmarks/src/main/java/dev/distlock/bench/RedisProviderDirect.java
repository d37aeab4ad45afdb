package dev.distlock.bench;

import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.redis.RedisLockProvider;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code diag-redis-provider} (diagnostic, not a peer): distlock's
 * {@link RedisLockProvider} called directly, one {@code tryAcquire} and one
 * {@code release} per operation, without {@code LockTemplate} (no local queue, re-entry,
 * lease bookkeeping or listeners). The gap to {@code distlock-redis-template} is the
 * core's cost; the gap to {@code diag-sdr-scripts} is the provider's own. One thread
 * only: without the core's local queue, threads of one key would spin.
 */
final class RedisProviderDirect implements Subject {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockProvider provider;

	private final BenchConfig config;

	private final AtomicLong owners = new AtomicLong();

	RedisProviderDirect(BenchConfig config) {
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(config.redisHost(), config.redisPort()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.provider = new RedisLockProvider(this.connectionFactory);
		this.provider.afterPropertiesSet();
		this.config = config;
		connect();
	}

	/**
	 * The provider opens its connection in the background and fails a call that finds it
	 * not yet open after the call timeout, as a Boot application's health check would
	 * see; a subject waits for it (up to 10 s) before the first measured call.
	 */
	private void connect() {
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (true) {
			try {
				lock("connect").unlock();
				return;
			}
			catch (Exception ex) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Redis not reachable for diag-redis-provider", ex);
				}
			}
		}
	}

	@Override
	public Hold lock(String key) throws Exception {
		LockAttempt attempt = new LockAttempt("lock:" + key, LockType.MUTEX, 1, BenchConfig.LEASE,
				this.config.runId() + ":" + this.owners.incrementAndGet());
		while (true) {
			var outcome = this.provider.tryAcquire(attempt);
			if (outcome.isAcquired()) {
				var held = outcome.lock();
				return () -> this.provider.release(held);
			}
			Thread.onSpinWait();
		}
	}

	@Override
	public boolean reentrant() {
		return false;
	}

	@Override
	public void close() {
		this.provider.close();
		this.connectionFactory.destroy();
		RedisKeys.deleteMatching(this.config, "*" + this.config.runId() + "*");
	}

}
