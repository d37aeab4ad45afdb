package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.LockType;
import dev.distlock.test.AbstractLockProviderContractTests;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The provider contract on the Redis at {@link TestServers#redisUri()}; every provider is
 * another "process" with its own subscription, sharing one connection factory.
 */
class RedisLockProviderContractTests extends AbstractLockProviderContractTests<RedisLockProvider> {

	private static LettuceConnectionFactory standalone;

	@BeforeAll
	static void connect() {
		standalone = RedisTestConnections.standalone(TestServers.redisUri(), Duration.ofSeconds(10));
	}

	@AfterAll
	static void disconnect() {
		standalone.destroy();
	}

	/**
	 * The connections every provider of this test uses.
	 * @return the connection factory
	 */
	protected RedisConnectionFactory connectionFactory() {
		return standalone;
	}

	@Override
	protected RedisLockProvider createProvider() {
		return new RedisLockProvider(connectionFactory());
	}

	@Override
	protected void breakLock(String fullKey, LockType type) {
		new StringRedisTemplate(connectionFactory()).delete(RedisLockKeys.of(fullKey, type).lockState());
	}

}
