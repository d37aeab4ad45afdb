package dev.distlock.redis;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.test.ManyWatchdogLeases;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batched renewal on Redis: many leases in one pipelined round trip, and 10,000 watchdog
 * leases held at once.
 */
class RedisBatchRenewalTests {

	private final LettuceConnectionFactory factory = RedisTestConnections.standalone(TestServers.redisUri(),
			Duration.ofSeconds(10));

	private final RedisLockProvider provider = new RedisLockProvider(this.factory);

	@AfterEach
	void close() {
		this.provider.close();
		this.factory.destroy();
	}

	@Test
	void batchRenewalRenewsOwnLocksAndRefusesOthers() throws Exception {
		String prefix = "batch:" + UUID.randomUUID() + ":";
		var held = this.provider.tryAcquire(attempt(prefix + "a", LockType.MUTEX)).lock();
		var reader = this.provider.tryAcquire(attempt(prefix + "b", LockType.READ)).lock();
		var gone = this.provider.tryAcquire(attempt(prefix + "c", LockType.MUTEX)).lock();
		this.provider.release(gone);
		this.provider.renew(held, Duration.ofSeconds(30)); // loads the scripts a pipeline
															// cannot load itself
		this.provider.renew(reader, Duration.ofSeconds(30));
		RenewalOutcome[] renewed = this.provider.renewAll(List.of(held, reader, gone), Duration.ofSeconds(30));
		assertThat(renewed).as("renewed in one batch")
			.containsExactly(RenewalOutcome.renewed(), RenewalOutcome.renewed(), RenewalOutcome.notHeld());
		this.provider.release(held);
		this.provider.release(reader);
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void oneFailedReplyFailsOnlyItsOwnLease(String driver) throws Exception {
		RedisConnectionFactory factory = driver.equals("lettuce") ? this.factory : jedis();
		RedisLockProvider provider = driver.equals("lettuce") ? this.provider : new RedisLockProvider(factory);
		try {
			String prefix = "batch:" + UUID.randomUUID() + ":";
			var healthy = provider.tryAcquire(attempt(prefix + "healthy", LockType.MUTEX)).lock();
			var broken = provider.tryAcquire(attempt(prefix + "broken", LockType.MUTEX)).lock();
			var after = provider.tryAcquire(attempt(prefix + "after", LockType.MUTEX)).lock();
			provider.renew(healthy, Duration.ofSeconds(30)); // loads the script a
																// pipeline cannot load
																// itself
			// the renewal of this one fails on the server (WRONGTYPE), as a reply from a
			// shard that is down would
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			String brokenKey = broken.keys().holder();
			redis.delete(brokenKey);
			redis.opsForHash().put(brokenKey, "not", "a string");
			RenewalOutcome[] outcomes = provider.renewAll(List.of(healthy, broken, after), Duration.ofSeconds(30));
			assertThat(outcomes[0]).as("healthy lease before the failed one").isEqualTo(RenewalOutcome.renewed());
			assertThat(outcomes[1].failure()).as("the failed reply's own lease").isNotNull();
			assertThat(outcomes[2]).as("healthy lease after the failed one").isEqualTo(RenewalOutcome.renewed());
			redis.delete(brokenKey);
			provider.release(healthy);
			provider.release(after);
		}
		finally {
			if (provider != this.provider) {
				provider.close();
				((JedisConnectionFactory) factory).destroy();
			}
		}
	}

	private static JedisConnectionFactory jedis() {
		URI uri = TestServers.redisUri();
		JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(
				(uri.getHost() != null) ? uri.getHost() : "127.0.0.1", (uri.getPort() > 0) ? uri.getPort() : 6379));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Locks held as strings are renewed 26 to a script on a standalone connection: each
	 * keeps its own outcome across the scripts' bounds, a lock no longer held and one the
	 * server fails on among them, and the TTL set is the new lease.
	 */
	@Test
	void holdersRenewedManyToAScriptKeepTheirOwnOutcomes() throws Exception {
		String prefix = "batch:" + UUID.randomUUID() + ":";
		List<RedisHeldLock> held = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			LockType type = List.of(LockType.MUTEX, LockType.FAIR, LockType.WRITE).get(i % 3);
			held.add(this.provider.tryAcquire(attempt(prefix + i, type)).lock());
		}
		this.provider.renew(held.get(0), Duration.ofSeconds(30)); // loads the script a
																	// pipeline cannot
																	// load
		int gone = 25;
		int broken = 26;
		this.provider.release(held.get(gone));
		StringRedisTemplate redis = new StringRedisTemplate(this.factory);
		String brokenKey = held.get(broken).keys().holder();
		redis.delete(brokenKey);
		redis.opsForHash().put(brokenKey, "not", "a string");
		try {
			RenewalOutcome[] outcomes = this.provider.renewAll(held, Duration.ofSeconds(30));
			for (int i = 0; i < held.size(); i++) {
				if (i == gone) {
					assertThat(outcomes[i]).as("released lock %d", i).isEqualTo(RenewalOutcome.notHeld());
				}
				else if (i == broken) {
					assertThat(outcomes[i].failure()).as("lock %d the server failed on", i).isNotNull();
				}
				else {
					assertThat(outcomes[i]).as("lock %d", i).isEqualTo(RenewalOutcome.renewed());
					assertThat(redis.getExpire(held.get(i).keys().holder(), TimeUnit.MILLISECONDS))
						.as("lock %d's new lease", i)
						.isGreaterThan(Duration.ofSeconds(20).toMillis());
				}
			}
		}
		finally {
			redis.delete(brokenKey);
			for (int i = 0; i < held.size(); i++) {
				if (i != gone && i != broken) {
					this.provider.release(held.get(i));
				}
			}
		}
	}

	@Test
	void tenThousandWatchdogLeasesUseTwoThreadsAndBatchedRenewals() throws Exception {
		ManyWatchdogLeases.Result result = ManyWatchdogLeases.hold(this.provider);
		assertThat(result.ownThreads()).as("distlock's own threads while holding 10,000 watchdog leases")
			.hasSizeLessThanOrEqualTo(2);
		assertThat(result.batchesPerPeriod()).as("backend calls per renewal period")
			.isPositive()
			.isLessThanOrEqualTo(100);
		assertThat(result.valid()).as("leases renewed, none lost").isEqualTo(ManyWatchdogLeases.LEASES);
		assertThat(result.watched()).isEqualTo(ManyWatchdogLeases.LEASES);
		assertThat(result.leftAfterRelease()).isZero();
	}

	private static LockAttempt attempt(String key, LockType type) {
		// a call budget that covers connecting on a cold, loaded test JVM
		return new LockAttempt(key, type, 1, Duration.ofSeconds(5), UUID.randomUUID().toString(), -1,
				System.nanoTime() + TimeUnit.SECONDS.toNanos(10), null);
	}

}
