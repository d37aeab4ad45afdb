package dev.distlock.bench;

import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * {@code si-redis-spin} and {@code si-redis-pubsub}: Spring Integration's
 * {@link RedisLockRegistry} on a Lettuce connection factory, with its defaults otherwise
 * (spin locks retry every 100 ms; pub/sub locks wait for a release message). Locks come
 * from {@code obtain(key)} and are re-entrant per thread through a local lock.
 */
final class SpringIntegrationRedis implements Subject {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockRegistry registry;

	private final BenchConfig config;

	private final String registryKey;

	SpringIntegrationRedis(BenchConfig config, RedisLockType type) {
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(config.redisHost(), config.redisPort()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.registryKey = "bench:" + config.runId() + ":si";
		this.registry = new RedisLockRegistry(this.connectionFactory, this.registryKey, BenchConfig.LEASE);
		this.registry.setRedisLockType(type);
		this.config = config;
	}

	@Override
	public Hold lock(String key) throws InterruptedException {
		Lock lock = this.registry.obtain(key);
		lock.lockInterruptibly();
		return lock::unlock;
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.connectionFactory.destroy();
		RedisKeys.deleteMatching(this.config, "*" + this.config.runId() + "*");
	}

}
