package dev.distlock.etcd;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The calls an uncontended lock costs, counted by a gRPC client interceptor on the
 * client's every call: one transaction per acquisition (the entry's put and the read of
 * the queue's head together), one per release (the delete of the entry, if it is still
 * the one granted), and no watch, no read and no lease grant while nobody waits. The only
 * other calls are keep-alives of the process's etcd lease, bounded by time, not by the
 * number of locks: at most one each time less than a lock's lease is left on it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdRoundTripTests {

	private static final int CYCLES = 200;

	private final EtcdRpcs rpcs = new EtcdRpcs();

	private Client client;

	private LockTemplate template;

	@BeforeEach
	void connect() throws Exception {
		this.client = EtcdCluster.shared().client(this.rpcs);
		this.client.getKVClient().get(EtcdKeys.bytes("warm-up")).get(10, TimeUnit.SECONDS);
		EtcdLockProvider provider = EtcdLockProvider.builder(this.client).build();
		this.template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix("round-trips:"), List.of());
	}

	@AfterEach
	void close() {
		this.template.close();
		this.client.close();
	}

	@Test
	void uncontendedAcquireIsOneTransactionAndReleaseOneDelete() throws Exception {
		String key = "uncontended-" + System.nanoTime();
		// the first acquisition grants the process's etcd lease
		this.template.acquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()).release();
		Map<String, Integer> before = this.rpcs.counts();
		long start = System.nanoTime();
		for (int i = 0; i < CYCLES; i++) {
			Lease lease = this.template.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build());
			lease.release();
		}
		Map<String, Integer> calls = difference(this.rpcs.counts(), before);
		assertCalls(calls, start, "uncontended acquire + release cycles on one key");
	}

	@Test
	void uncontendedTryOnceOnManyKeysIsOneTransactionAndReleaseOneDelete() throws Exception {
		String key = "keys-" + System.nanoTime() + "-";
		this.template.acquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()).release();
		Map<String, Integer> before = this.rpcs.counts();
		long start = System.nanoTime();
		for (int i = 0; i < CYCLES; i++) {
			this.template.acquire(LockRequest.builder(key + i).waitTime(Duration.ZERO).build()).release();
		}
		Map<String, Integer> calls = difference(this.rpcs.counts(), before);
		assertCalls(calls, start, "try-once acquire + release cycles on distinct keys");
	}

	private static void assertCalls(Map<String, Integer> calls, long start, String what) {
		double seconds = (System.nanoTime() - start) / 1e9;
		Map<String, Integer> perLock = new java.util.TreeMap<>(calls);
		int keepAlives = perLock.getOrDefault("LeaseKeepAlive", 0);
		perLock.remove("LeaseKeepAlive");
		assertThat(perLock).as("calls of %d %s, keep-alives aside", CYCLES, what).isEqualTo(Map.of("Txn", 2 * CYCLES));
		// the etcd lease of the default 30 s lease has 31 s: it needs a keep-alive at
		// most once every 0.9 s
		assertThat(keepAlives).as("keep-alives of the etcd lease during %d %s in %.1f s", CYCLES, what, seconds)
			.isLessThanOrEqualTo(1 + (int) (seconds / 0.9));
	}

	private static Map<String, Integer> difference(Map<String, Integer> after, Map<String, Integer> before) {
		Map<String, Integer> difference = new java.util.TreeMap<>();
		after.forEach((method, count) -> {
			int calls = count - before.getOrDefault(method, 0);
			if (calls != 0) {
				difference.put(method, calls);
			}
		});
		return difference;
	}

}
