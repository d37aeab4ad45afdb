package dev.distlock.sample;

import java.net.URI;
import java.util.HashSet;
import java.util.Set;

import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Profile {@code redis}: locks in the local Redis through Spring Data Redis; data on a
 * private H2 file.
 */
@ActiveProfiles("redis")
class RedisProfileTests extends AbstractProfileTests {

	@Autowired
	StringRedisTemplate redis;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.h2Url(RedisProfileTests.class));
		URI redis = TestServers.redisUri();
		registry.add("spring.data.redis.host", redis::getHost);
		registry.add("spring.data.redis.port", redis::getPort);
	}

	@Override
	String backend() {
		return "redis";
	}

	@AfterEach
	void deleteKeys() {
		// fencing counters outlive the locks; leave nothing in the shared Redis
		Set<String> keys = new HashSet<>();
		try (Cursor<String> cursor = this.redis.scan(ScanOptions.scanOptions().match("*" + KEY_PREFIX + "*").build())) {
			cursor.forEachRemaining(keys::add);
		}
		if (!keys.isEmpty()) {
			this.redis.delete(keys);
		}
	}

}
