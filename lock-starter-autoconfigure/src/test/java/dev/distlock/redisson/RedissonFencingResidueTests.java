package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens never go backwards when a counter is lost (a restart without
 * persistence, a failover that lost the last writes, the counter's own expiry: here the
 * counter is deleted, never the shared server flushed), and what a released lock leaves
 * in Redis expires within the documented retention.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonFencingResidueTests {

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private final String prefix = "rfr:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final RedissonClient admin = RedissonClients.shared();

	private final RedissonClient client = RedissonClients.shared();

	private LockTemplate template;

	@AfterEach
	void close() {
		if (this.template != null) {
			this.template.close();
		}
		this.admin.getKeys().deleteByPattern("*" + this.prefix + "*");
		RedissonClients.shutdown(this.client);
		RedissonClients.shutdown(this.admin);
	}

	/**
	 * A process with default settings, as a new user would have, and the given fence
	 * retention.
	 */
	private LockTemplate process(Duration retention) {
		RedissonLockProvider provider = new RedissonLockProvider(this.client);
		provider.setFenceRetention(retention);
		this.template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix), List.of());
		return this.template;
	}

	private long lockAndRelease(String key, LockType type) {
		try (Lease lease = this.template.acquire(LockRequest.builder(key).type(type).waitTime(Duration.ZERO).build())) {
			return lease.fencingToken();
		}
	}

	private void deleteCounter(String key, LockType type) {
		String counter = RedissonLockKeys.of(this.prefix + key, type).fence();
		assertThat(this.admin.getKeys().delete(counter)).as("counter %s existed", counter).isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void tokensKeepRisingAfterTheCounterIsLost(LockType type) {
		process(RETENTION);
		String key = "lost-" + type;
		long before = lockAndRelease(key, type);
		long again = lockAndRelease(key, type);
		assertThat(again).isGreaterThan(before);
		deleteCounter(key, type);
		assertThat(lockAndRelease(key, type)).as("%s token after the counter was deleted", type).isGreaterThan(again);
	}

	@Test
	void twoThousandReleasedKeysLeaveOnlyKeysThatExpireWithinTheRetention() {
		process(RETENTION);
		Map<String, Long> tokens = new LinkedHashMap<>();
		Map<String, LockType> types = new LinkedHashMap<>();
		for (int i = 0; i < 2000; i++) {
			types.put("order:" + i, LockType.MUTEX);
		}
		for (LockType type : List.of(LockType.FAIR, LockType.READ, LockType.WRITE, LockType.SEMAPHORE)) {
			for (int i = 0; i < 100; i++) {
				types.put(type + ":" + i, type);
			}
		}
		types.forEach((key, type) -> tokens.put(key, lockAndRelease(key, type)));

		Map<String, Integer> left = new TreeMap<>();
		List<String> offending = new ArrayList<>();
		for (String name : this.admin.getKeys().getKeys(KeysScanOptions.defaults().pattern("*" + this.prefix + "*"))) {
			long pttl = this.admin.getKeys().remainTimeToLive(name);
			if (pttl <= 0 || pttl > RETENTION.toMillis()) {
				offending.add(name + " (PTTL " + pttl + ")");
			}
			left.merge(name.substring(name.lastIndexOf(':') + 1), 1, Integer::sum);
		}
		assertThat(offending).as("keys without an expiry within %s (left by kind: %s)", RETENTION, left).isEmpty();
		assertThat(left).as("only fencing counters and semaphores are left")
			.containsOnlyKeys("fence", "semaphore")
			.containsEntry("fence", types.size())
			.containsEntry("semaphore", 100);

		List<String> sample = List.of("order:0", "order:1999", "FAIR:7", "READ:7", "WRITE:7", "SEMAPHORE:7");
		for (String key : sample) {
			deleteCounter(key, types.get(key));
			assertThat(lockAndRelease(key, types.get(key))).as("token of %s once its counter is gone", key)
				.isGreaterThan(tokens.get(key));
		}
	}

}
