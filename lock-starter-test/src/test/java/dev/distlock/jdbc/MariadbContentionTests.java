package dev.distlock.jdbc;

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
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.test.LockHistory;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight threads, each its own process (so no local queueing spares the database), fight
 * over one key on MariaDB through InnoDB: no error may reach a caller, and the recorded
 * history must show one holder at a time with rising tokens. The URL carries no
 * {@code useAffectedRows}: the provider does not depend on it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MariadbContentionTests {

	private static JdbcTestDatabase database;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<LockTemplate> processes = new ArrayList<>();

	@BeforeAll
	static void createTable() {
		TestServers.JdbcServer server = TestServers.mariadb();
		String url = server.url().replaceAll("[?&]useAffectedRows=true", "");
		database = JdbcTestDatabase.create(url, server.username(), server.password(), (config) -> {
		});
	}

	@AfterAll
	static void dropTable() {
		database.close();
	}

	@AfterEach
	void closeProcesses() {
		this.executor.shutdownNow();
		this.processes.forEach((process) -> {
			process.close();
			process.defaultProvider().close();
		});
	}

	@Test
	void eightThreadsOnOneMutexKeySurfaceNoErrors() throws Exception {
		String key = "contended-" + UUID.randomUUID();
		run(8, 25, (random) -> LockType.MUTEX, key);
	}

	@Test
	void eightThreadsMixingReadWriteSemaphoreAndFairSurfaceNoErrors() throws Exception {
		String key = "mixed-" + UUID.randomUUID();
		List<LockType> types = List.of(LockType.READ, LockType.READ, LockType.WRITE, LockType.SEMAPHORE, LockType.FAIR);
		run(8, 20, (random) -> types.get(random.nextInt(types.size())), key);
	}

	interface TypeChoice {

		LockType pick(ThreadLocalRandom random);

	}

	private void run(int threads, int ops, TypeChoice types, String key) throws Exception {
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix("")
			.withBackoff(Duration.ofMillis(2), Duration.ofMillis(50), Duration.ofMillis(300));
		LockHistory history = new LockHistory();
		AtomicInteger errors = new AtomicInteger();
		List<JdbcLockProvider> providers = new ArrayList<>();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			JdbcLockProvider provider = database.provider().build();
			providers.add(provider);
			LockTemplate process = new LockTemplate(List.of(provider), "jdbc", settings, List.of());
			this.processes.add(process);
			String holder = "p" + t;
			workers.add(this.executor.submit(() -> {
				start.await();
				for (int op = 0; op < ops; op++) {
					LockType type = types.pick(ThreadLocalRandom.current());
					LockRequest.Builder request = LockRequest.builder(key).type(type).waitTime(Duration.ofSeconds(60));
					if (type == LockType.SEMAPHORE) {
						request.permits(2);
					}
					long requested = System.nanoTime();
					Lease lease;
					try {
						lease = process.acquire(request.build());
					}
					catch (RuntimeException ex) {
						errors.incrementAndGet();
						throw ex;
					}
					long begin = System.nanoTime();
					Thread.sleep(ThreadLocalRandom.current().nextInt(2));
					history.record(lease, 2, holder, requested, begin, System.nanoTime());
					lease.release();
				}
				return null;
			}));
		}
		long started = System.nanoTime();
		start.countDown();
		for (Future<?> worker : workers) {
			worker.get(100, TimeUnit.SECONDS);
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		long contended = providers.stream().mapToLong(JdbcLockProvider::contendedAttempts).sum();
		System.out.printf("%d holds in %.1f s (%.0f/s), %d contention errors absorbed as busy%n", history.size(),
				seconds, history.size() / seconds, contended);
		assertThat(errors.get()).as("errors surfaced to callers").isZero();
		assertThat(history.size()).isEqualTo(threads * ops);
		history.assertConsistent();
	}

}
