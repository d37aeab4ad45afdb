package dev.distlock.fencing;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.TestServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Fenced Redis writes on the real Redis: the highest token per key (and per hash field)
 * wins, a lower one is refused and counted, tokens beyond 2^53 compare exactly, and the
 * token key shares the value's cluster slot.
 */
class RedisFencingTests {

	private final LettuceConnectionFactory factory = FencingTestSupport.redis(TestServers.redisUri());

	private final StringRedisTemplate redis = new StringRedisTemplate(this.factory);

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final RedisFencing fencing = new RedisFencing(this.redis, new MetricsFencingListener(this.meters));

	private final String key = "fencing-test:" + UUID.randomUUID();

	@AfterEach
	void cleanUp() {
		this.redis.delete(List.of(this.key, RedisFencing.tokenKey(this.key, ":fencing-token"),
				RedisFencing.tokenKey(this.key, ":fencing-tokens")));
		this.factory.destroy();
	}

	@Test
	void setKeepsTheHighestToken() {
		this.fencing.set(this.key, "a", 5);
		this.fencing.set(this.key, "b", 5);
		this.fencing.set(this.key, "c", 9);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.set(this.key, "late", 8))
			.satisfies((ex) -> assertThat(ex.getRecordedToken()).isEqualTo(9));
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("c");
		assertThat(this.meters.get(MetricsFencingListener.REJECTED).tags("store", "redis").counter().count())
			.isEqualTo(1.0);
	}

	@Test
	void tokensBeyondDoublePrecisionCompareExactly() {
		long big = (1L << 53) + 2;
		this.fencing.set(this.key, "big", big);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.set(this.key, "late", big - 1));
		this.fencing.set(this.key, "bigger", big + 1);
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("bigger");
	}

	@Test
	void hsetKeepsTheHighestTokenPerField() {
		this.fencing.hset(this.key, "a", "1", 10);
		this.fencing.hset(this.key, "b", "1", 3);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.hset(this.key, "a", "late", 9))
			.withMessageContaining("field 'a'");
		this.fencing.hset(this.key, "b", "2", 4);
		assertThat(this.redis.<String, String>opsForHash().entries(this.key)).containsEntry("a", "1")
			.containsEntry("b", "2")
			.hasSize(2);
	}

	@Test
	void setWithTimeToLiveExpiresValueAndToken() {
		this.fencing.set(this.key, "a", Duration.ofSeconds(30), 1);
		assertThat(this.redis.getExpire(this.key)).isPositive();
		assertThat(this.redis.getExpire(RedisFencing.tokenKey(this.key, ":fencing-token"))).isPositive();
	}

	@Test
	void tokenComesFromTheCurrentLease() {
		try (LockTemplate locks = new LockTemplate(new LocalLockProvider())) {
			long token = locks.execute("k", () -> {
				this.fencing.set(this.key, "mine");
				return LockContext.currentLease().fencingToken();
			});
			assertThat(this.redis.opsForValue().get(RedisFencing.tokenKey(this.key, ":fencing-token")))
				.isEqualTo(Long.toString(token));
		}
	}

	@Test
	void tokenKeySharesTheValuesClusterSlot() {
		assertThat(RedisFencing.tokenKey("order:1", ":fencing-token")).isEqualTo("{order:1}:fencing-token");
		assertThat(RedisFencing.tokenKey("order:{1}", ":fencing-token")).isEqualTo("order:{1}:fencing-token");
	}

}
