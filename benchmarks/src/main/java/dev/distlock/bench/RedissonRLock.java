package dev.distlock.bench;

import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * {@code redisson-rlock}: Redisson's {@link RLock} as its documentation shows it:
 * {@code lock(leaseTime)} (waits on Redisson's pub/sub channel when busy) and
 * {@code unlock()}, on a plain Redisson client with default settings.
 */
final class RedissonRLock implements Subject {

	private final RedissonClient client;

	private final BenchConfig config;

	RedissonRLock(BenchConfig config) {
		Config redisson = new Config();
		redisson.useSingleServer().setAddress(config.redisUri());
		this.client = Redisson.create(redisson);
		this.config = config;
	}

	@Override
	public Hold lock(String key) {
		RLock lock = this.client.getLock(key);
		lock.lock(BenchConfig.LEASE.toMillis(), TimeUnit.MILLISECONDS);
		return lock::unlock;
	}

	@Override
	public void close() {
		this.client.shutdown();
		RedisKeys.deleteMatching(this.config, "*" + this.config.runId() + "*");
	}

}
