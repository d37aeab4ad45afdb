package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.test.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The quorum lock over five {@code redis-server} processes this test starts: two clients
 * (two providers, standing for two processes) keep mutual exclusion and increasing tokens
 * with all nodes up and with two killed; with three killed an acquisition fails with
 * {@link LockAcquisitionException} within its wait and the node timeout, not a hang, and
 * a held lease is reported lost.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonQuorumLockProviderFaultTests {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final String prefix = "quorum:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	@AfterEach
	void stop() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void quorumKeepsExclusionWithTwoOfFiveNodesDownAndFailsFastWithThree() throws Exception {
		RedisProcesses servers = RedisProcesses.start(5);
		this.resources.add(servers);
		LockTemplate first = process(servers);
		LockTemplate second = process(servers);
		List<String> keys = List.of("a", "b");
		LockHistory history = new LockHistory();

		runWorkload(history, List.of(first, second), keys, "all up");
		int allUp = history.size();
		assertThat(allUp).isEqualTo(2 * 3 * 15);
		history.assertConsistent();

		Lease held = first.acquire(LockRequest.builder("held").waitTime(Duration.ofSeconds(5)).build());
		servers.kill(0);
		servers.kill(1);
		runWorkload(history, List.of(first, second), keys, "two nodes down");
		assertThat(history.size()).isEqualTo(2 * allUp);
		// one history across the kills: tokens after the kills exceed those before them
		history.assertConsistent();
		Thread.sleep(watchdogLease().multipliedBy(2).toMillis());
		assertThat(held.isValid()).as("a lease renewed on three of five nodes").isTrue();
		assertThat(second.tryAcquire(LockRequest.builder("held").waitTime(Duration.ZERO).build()))
			.as("held on a majority")
			.isEmpty();

		CountDownLatch lost = new CountDownLatch(1);
		held.onLost(lost::countDown);
		servers.kill(2);
		Duration wait = Duration.ofSeconds(2);
		long start = System.nanoTime();
		assertTimeoutPreemptively(Duration.ofSeconds(30),
				() -> assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> second.acquire(LockRequest.builder("c").waitTime(wait).build()))
					.withMessageContaining("nodes answered"));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		System.out.println("AttemptOutcome with 3 of 5 nodes down failed after " + took.toMillis() + " ms");
		assertThat(took).as("fails within wait + node timeout").isLessThan(wait.plus(NODE_TIMEOUT.multipliedBy(4)));
		assertThat(lost.await(watchdogLease().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS))
			.as("a lease whose quorum is gone is reported lost")
			.isTrue();
		held.release();
	}

	@Test
	void tokensKeepRisingWhenEveryNodeLostItsCounterAndCountersExpire() throws Exception {
		RedisProcesses servers = RedisProcesses.start(3);
		this.resources.add(servers);
		LockTemplate process = process(servers);
		LockRequest request = LockRequest.builder("counters").waitTime(Duration.ZERO).build();
		long before;
		try (Lease lease = process.acquire(request)) {
			before = lease.fencingToken();
		}
		String counter = RedissonLockKeys.of(this.prefix + "counters", dev.distlock.core.LockType.MUTEX).fence();
		for (int i = 0; i < servers.size(); i++) {
			org.redisson.api.RedissonClient admin = RedissonClients.create(servers.address(i));
			try {
				long pttl = admin.getKeys().remainTimeToLive(counter);
				assertThat(pttl).as("counter on node %d expires within the retention", i)
					.isPositive()
					.isLessThanOrEqualTo(RedissonQuorumLockProvider.DEFAULT_FENCE_RETENTION.toMillis());
				// as a restart without persistence would
				admin.getKeys().delete(counter);
			}
			finally {
				RedissonClients.shutdown(admin);
			}
		}
		try (Lease lease = process.acquire(request)) {
			assertThat(lease.fencingToken()).as("token once every node lost its counter").isGreaterThan(before);
		}
	}

	private static Duration watchdogLease() {
		return Duration.ofMillis(1500);
	}

	private LockTemplate process(RedisProcesses servers) {
		RedissonQuorumLockProvider provider = RedissonQuorumLockProvider.connect(servers.addresses(), NODE_TIMEOUT,
				null);
		this.resources.add(provider::close);
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix(this.prefix)
			.withWatchdog(watchdogLease(), watchdogLease().dividedBy(3))
			.withBackoff(Duration.ofMillis(5), Duration.ofMillis(50), Duration.ofMillis(300));
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(), settings, List.of());
		this.resources.add(template);
		return template;
	}

	private void runWorkload(LockHistory history, List<LockTemplate> processes, List<String> keys, String phase)
			throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>();
		for (int p = 0; p < processes.size(); p++) {
			LockTemplate process = processes.get(p);
			for (int t = 0; t < 3; t++) {
				String holder = phase + " p" + p + "t" + t;
				futures.add(this.executor.submit(() -> {
					start.await();
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int op = 0; op < 15; op++) {
						LockRequest request = LockRequest.builder(keys.get(random.nextInt(keys.size())))
							.waitTime(Duration.ofSeconds(30))
							.build();
						long requested = System.nanoTime();
						Lease lease = process.acquire(request);
						long begin = System.nanoTime();
						try {
							Thread.sleep(random.nextInt(3));
						}
						finally {
							history.record(lease, 1, holder, requested, begin, System.nanoTime());
							lease.release();
						}
					}
					return null;
				}));
			}
		}
		start.countDown();
		for (Future<?> future : futures) {
			future.get(90, TimeUnit.SECONDS);
		}
	}

}
