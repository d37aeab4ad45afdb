package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.test.ManyWatchdogLeases;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** Batched renewal on Redis: many leases in one pipelined round trip, and 10,000 watchdog leases held at once. */
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
		this.provider.renew(held, Duration.ofSeconds(30)); // loads the scripts a pipeline cannot load itself
		this.provider.renew(reader, Duration.ofSeconds(30));
		RenewalOutcome[] renewed = this.provider.renewAll(List.of(held, reader, gone), Duration.ofSeconds(30));
		assertThat(renewed).as("renewed in one batch")
			.containsExactly(RenewalOutcome.renewed(), RenewalOutcome.renewed(), RenewalOutcome.notHeld());
		this.provider.release(held);
		this.provider.release(reader);
	}

	@Test
	void tenThousandWatchdogLeasesUseTwoThreadsAndBatchedRenewals() throws Exception {
		ManyWatchdogLeases.Result result = ManyWatchdogLeases.hold(this.provider);
		assertThat(result.ownThreads()).as("distlock's own threads while holding 10,000 watchdog leases")
			.hasSizeLessThanOrEqualTo(2);
		assertThat(result.batchesPerPeriod()).as("backend calls per renewal period").isPositive()
			.isLessThanOrEqualTo(100);
		assertThat(result.valid()).as("leases renewed, none lost").isEqualTo(ManyWatchdogLeases.LEASES);
		assertThat(result.watched()).isEqualTo(ManyWatchdogLeases.LEASES);
		assertThat(result.leftAfterRelease()).isZero();
	}

	private static LockAttempt attempt(String key, LockType type) {
		return new LockAttempt(key, type, 1, Duration.ofSeconds(5), UUID.randomUUID().toString());
	}

}
