package dev.distlock.redis;

import java.net.URI;

import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The provider contract on Jedis: a connection factory that is not Lettuce's, so every
 * script goes through {@code RedisTemplate} ({@link TemplateScriptRunner}) instead of the
 * native Lettuce connection.
 */
class RedisJedisLockProviderContractTests extends RedisLockProviderContractTests {

	private static JedisConnectionFactory jedis;

	@BeforeAll
	static void connectJedis() {
		URI uri = TestServers.redisUri();
		jedis = new JedisConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
		jedis.afterPropertiesSet();
		jedis.start();
	}

	@AfterAll
	static void disconnectJedis() {
		jedis.destroy();
	}

	@Override
	protected RedisConnectionFactory connectionFactory() {
		return jedis;
	}

}
