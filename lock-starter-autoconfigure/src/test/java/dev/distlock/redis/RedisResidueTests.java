package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What released locks leave in Redis: the common case of a lock per business object, many
 * distinct keys each locked once, with default settings. Everything a lock writes expires
 * by itself; once released, a key leaves only its fencing counter, for
 * {@link RedisLockProvider#DEFAULT_FENCE_RETENTION}, and the clock floor keeps its tokens
 * rising after the counter is gone.
 */
class RedisResidueTests {

	private static final int KEYS = 2_000;

	private static final LockType[] TYPES = { LockType.MUTEX, LockType.FAIR, LockType.READ, LockType.WRITE,
			LockType.SEMAPHORE };

	private final String prefix = "residue:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	private RedisLockProvider provider;

	private LockTemplate template;

	@BeforeEach
	void connect() {
		this.connectionFactory = RedisTestConnections.standalone(TestServers.redisUri(), Duration.ofSeconds(10));
		this.redis = new StringRedisTemplate(this.connectionFactory);
		this.provider = new RedisLockProvider(this.connectionFactory);
		this.template = new LockTemplate(List.of(this.provider), this.provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix), List.of());
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.provider.close();
		List<String> left = residue();
		if (!left.isEmpty()) {
			this.redis.delete(left);
		}
		this.connectionFactory.destroy();
	}

	@Test
	void releasedLocksOfDistinctKeysLeaveOnlyTheirFenceCountersWhichExpireWithinTheRetention() {
		for (int i = 0; i < KEYS; i++) {
			LockType type = TYPES[i % TYPES.length];
			this.template.acquire(LockRequest.builder("order:" + i).type(type).waitTime(Duration.ZERO).build())
				.release();
		}
		List<String> left = residue();
		assertThat(left).as("what %d released locks left", KEYS)
			.hasSize(KEYS)
			.allMatch((key) -> key.endsWith(":fence"));
		long retention = RedisLockProvider.DEFAULT_FENCE_RETENTION.toMillis();
		assertThat(retention).as("default fence retention in ms").isLessThanOrEqualTo(Duration.ofHours(1).toMillis());
		for (String key : left) {
			Long ttl = this.redis.getExpire(key, TimeUnit.MILLISECONDS);
			assertThat(ttl).as("time to live of %s in ms", key).isNotNull().isBetween(1L, retention);
		}
	}

	@Test
	void keyLockedAgainAfterItsFenceCounterWentGetsAHigherToken() {
		LockRequest request = LockRequest.builder("order:again").waitTime(Duration.ZERO).build();
		Lease first = this.template.acquire(request);
		first.release();
		// what the retention does to a key nobody locked for a while, and a restart
		// without persistence to all keys
		assertThat(residue()).singleElement().satisfies((fence) -> this.redis.delete(fence));
		Lease again = this.template.acquire(request);
		assertThat(again.fencingToken()).as("token after the counter was gone").isGreaterThan(first.fencingToken());
		again.release();
	}

	private List<String> residue() {
		List<String> keys = new ArrayList<>();
		ScanOptions options = ScanOptions.scanOptions().match("{" + this.prefix + "*").count(1000).build();
		try (Cursor<String> cursor = this.redis.scan(options)) {
			cursor.forEachRemaining(keys::add);
		}
		return keys;
	}

}
