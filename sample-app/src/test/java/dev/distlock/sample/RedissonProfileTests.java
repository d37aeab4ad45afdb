package dev.distlock.sample;

import java.net.URI;

import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Profile {@code redisson}: locks through a RedissonClient on the local Redis; data on a
 * private H2 file.
 */
@ActiveProfiles("redisson")
class RedissonProfileTests extends AbstractProfileTests {

	@Autowired
	RedissonClient redisson;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.h2Url(RedissonProfileTests.class));
		URI redis = TestServers.redisUri();
		registry.add("spring.data.redis.host", redis::getHost);
		registry.add("spring.data.redis.port", redis::getPort);
	}

	@Override
	String backend() {
		return "redisson";
	}

	@AfterEach
	void deleteKeys() {
		// fencing counters and semaphore sizes outlive the locks; leave nothing in the
		// shared Redis
		this.redisson.getKeys().deleteByPattern("*" + KEY_PREFIX + "*");
	}

}
