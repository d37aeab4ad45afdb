package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.RenewalOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JDBC provider's background work goes through one lane: holding many watchdog leases
 * while the background sweep runs costs distlock's timer thread and one io thread, no
 * more, and a sweep over a large table gives way to renewals between its batches.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcBackgroundLaneTests {

	private final JdbcTestDatabase database = JdbcTestDatabase.postgres();

	@AfterEach
	void dropTable() {
		this.database.close();
	}

	@Test
	void holdingManyWatchdogLeasesWhileSweepingCostsTheTimerAndOneIoThread() throws Exception {
		int held = 3000;
		int released = 500;
		JdbcLockProvider provider = this.database.provider().cleanupInterval(Duration.ofSeconds(1)).build();
		// a 2 s lease renewed every 400 ms: in the 4 s watched below, every lease is
		// renewed ten times, in three batches each time, and the sweep runs about four
		// times
		LockTemplate template = new LockTemplate(List.of(provider), "jdbc",
				LockSettings.defaults().withKeyPrefix("").withWatchdog(Duration.ofSeconds(2), Duration.ofMillis(400)),
				List.of());
		List<Lease> leases = new ArrayList<>();
		try {
			for (int i = 0; i < released; i++) {
				template.acquire(LockRequest.of("released:" + i)).release();
			}
			for (int i = 0; i < held; i++) {
				leases.add(template.acquire(LockRequest.of("held:" + i)));
			}
			// the acquisitions' borrows may have left io threads; idle ones end after
			// IO_KEEP_ALIVE_SECONDS
			Thread.sleep(TimeUnit.SECONDS.toMillis(JdbcThreads.IO_KEEP_ALIVE_SECONDS + 1));
			Set<String> seen = new TreeSet<>();
			int most = 0;
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
			while (System.nanoTime() < end) {
				List<String> threads = distlockThreads(this.database.dataSource().getPoolName());
				seen.addAll(threads);
				most = Math.max(most, threads.size());
				Thread.sleep(10);
			}
			assertThat(most).as("distlock threads alive at once while %d leases are held (seen: %s)", held, seen)
				.isLessThanOrEqualTo(2);
			assertThat(seen).as("distlock threads seen").containsOnly("distlock-timer", "distlock-jdbc-io");
			assertThat(leases).as("leases still valid after two lease lengths").allMatch(Lease::isValid, "valid");
			assertThat(this.database.rowsWithPrefix("released:")).as("released rows left after the sweeps").isZero();
			assertThat(provider.sweptRows()).isGreaterThanOrEqualTo(released);
			assertThat(this.database.rowsWithPrefix("held:")).as("held rows").isEqualTo(held);
		}
		finally {
			leases.forEach(Lease::release);
			template.close();
			provider.close();
		}
	}

	@Test
	void aSweepOfALargeTableGivesWayToARenewalBetweenItsBatches() throws Exception {
		int expired = 50_000;
		String table = this.database.tableName();
		try (Connection connection = this.database.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			statement.executeUpdate("INSERT INTO " + table
					+ " (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence) SELECT 'expired:' || g, 'M',"
					+ " 0, 'owner', 'X', TIMESTAMP WITH TIME ZONE 'epoch', g FROM generate_series(1, " + expired
					+ ") g");
			statement.execute("ANALYZE " + table);
		}
		JdbcLockProvider provider = this.database.provider()
			.cleanupInterval(Duration.ZERO)
			.cleanupBatchSize(100)
			.build();
		try {
			AttemptOutcome<JdbcHeldLock> outcome = provider.tryAcquire(new LockAttempt("renewed-" + UUID.randomUUID(),
					LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID()));
			assertThat(outcome.isAcquired()).isTrue();
			provider.sweepInBackground();
			awaitTrue(() -> provider.sweptRows() > 0, Duration.ofSeconds(30));
			CompletableFuture<RenewalOutcome[]> answer = new CompletableFuture<>();
			long[] sweptAtAnswer = new long[1];
			boolean taken = provider.renewAllInBackground(List.of(outcome.lock()), Duration.ofSeconds(30),
					(outcomes) -> {
						sweptAtAnswer[0] = provider.sweptRows();
						answer.complete(outcomes);
					});
			assertThat(taken).as("the provider renews in the background").isTrue();
			RenewalOutcome[] outcomes = answer.get(30, TimeUnit.SECONDS);
			assertThat(outcomes).hasSize(1);
			assertThat(outcomes[0].isRenewed()).as("renewed").isTrue();
			// without giving way the renewal would wait for all 500 batches
			assertThat(sweptAtAnswer[0]).as("rows swept when the renewal was answered").isLessThan(expired);
			awaitTrue(() -> provider.sweptRows() >= expired, Duration.ofSeconds(60));
			assertThat(provider.sweptRows()).as("the sweep went on after the renewal").isEqualTo(expired);
			assertThat(this.database.rowsWithPrefix("expired:")).isZero();
			provider.release(outcome.lock());
		}
		finally {
			provider.close();
		}
	}

	@Test
	void aRenewalBatchWaitingForARowDoesNotHoldUpTheBatchesBehindIt() throws Exception {
		JdbcLockProvider provider = this.database.provider()
			.callTimeout(Duration.ofSeconds(5))
			.cleanupInterval(Duration.ZERO)
			.build();
		String prefix = "lane-stalled-" + UUID.randomUUID() + "-";
		try {
			JdbcHeldLock waiting = acquire(provider, prefix + "waiting");
			List<JdbcHeldLock> behind = List.of(acquire(provider, prefix + "a"), acquire(provider, prefix + "b"));
			try (Connection stalled = this.database.dataSource().getConnection()) {
				stalled.setAutoCommit(false);
				try (PreparedStatement lock = stalled.prepareStatement(
						"SELECT fence FROM " + this.database.tableName() + " WHERE lock_key = ? FOR UPDATE")) {
					lock.setString(1, StoredKeys.storedKey(prefix + "waiting"));
					lock.executeQuery().close();
				}
				try {
					CompletableFuture<RenewalOutcome[]> first = new CompletableFuture<>();
					CompletableFuture<RenewalOutcome[]> second = new CompletableFuture<>();
					// 3 s leases: the second batch may wait 500 ms; the first waits for
					// the row until the call timeout, 5 s
					provider.renewAllInBackground(List.of(waiting), Duration.ofSeconds(3), first::complete);
					provider.renewAllInBackground(behind, Duration.ofSeconds(3), second::complete);
					RenewalOutcome[] renewed = second.get(30, TimeUnit.SECONDS);
					assertThat(first).as("the batch waiting for the row, when the one behind it was answered")
						.isNotDone();
					assertThat(renewed).as("the batch behind it")
						.hasSize(2)
						.allSatisfy((outcome) -> assertThat(outcome.isRenewed()).isTrue());
					RenewalOutcome[] timedOut = first.get(30, TimeUnit.SECONDS);
					assertThat(timedOut[0].isRenewed()).as("the batch that waited past the call timeout").isFalse();
				}
				finally {
					stalled.rollback();
				}
			}
			provider.release(waiting);
			behind.forEach(provider::release);
		}
		finally {
			provider.close();
		}
	}

	@Test
	void theLaneNeverRunsMoreThanTwoTasksAtOnce() throws Exception {
		ExecutorService executor = Executors.newCachedThreadPool();
		BackgroundLane lane = new BackgroundLane(executor);
		BlockingTasks tasks = new BlockingTasks();
		try {
			for (int i = 0; i < 5; i++) {
				// no patience: each queued task calls for a second thread at once
				lane.execute(tasks.task(i), 0);
			}
			awaitTrue(() -> tasks.running.get() == 2, Duration.ofSeconds(10));
			Thread.sleep(200);
			assertThat(tasks.running.get()).as("tasks running while two are blocked").isEqualTo(2);
			assertThat(lane.threads()).as("threads draining the lane").isEqualTo(2);
			tasks.go.countDown();
			awaitTrue(() -> tasks.finished.get() == 5 && lane.threads() == 0, Duration.ofSeconds(10));
			// two threads take tasks in queue order but may start them in either order
			assertThat(tasks.started).as("tasks run").containsExactlyInAnyOrder(0, 1, 2, 3, 4);
			assertThat(tasks.most.get()).as("most tasks running at once").isEqualTo(2);
			assertThat(lane.threads()).as("threads draining the emptied lane").isZero();
		}
		finally {
			tasks.go.countDown();
			executor.shutdownNow();
		}
	}

	@Test
	void aTaskWithoutPatienceNeverCallsForASecondThread() throws Exception {
		ExecutorService executor = Executors.newCachedThreadPool();
		BackgroundLane lane = new BackgroundLane(executor);
		BlockingTasks tasks = new BlockingTasks();
		try {
			for (int i = 0; i < 3; i++) {
				// a sweep run's task: it waits its turn however long that takes
				lane.execute(tasks.task(i));
			}
			awaitTrue(() -> tasks.running.get() == 1, Duration.ofSeconds(10));
			Thread.sleep(300);
			assertThat(lane.threads()).as("threads draining the lane").isEqualTo(1);
			tasks.go.countDown();
			awaitTrue(() -> tasks.finished.get() == 3, Duration.ofSeconds(10));
			assertThat(tasks.started).as("tasks run, one after the other in order").containsExactly(0, 1, 2);
			assertThat(tasks.most.get()).as("most tasks running at once").isEqualTo(1);
		}
		finally {
			tasks.go.countDown();
			executor.shutdownNow();
		}
	}

	private static JdbcHeldLock acquire(JdbcLockProvider provider, String key) {
		AttemptOutcome<JdbcHeldLock> outcome = provider
			.tryAcquire(new LockAttempt(key, LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID()));
		assertThat(outcome.isAcquired()).as("%s acquired", key).isTrue();
		return outcome.lock();
	}

	private static void awaitTrue(BooleanSupplier condition, Duration timeout) throws InterruptedException {
		long end = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean() && System.nanoTime() < end) {
			Thread.sleep(5);
		}
	}

	/**
	 * Tasks that block until {@code go} opens, recording which started, how many ran at
	 * once at most, and how many finished.
	 */
	private static final class BlockingTasks {

		final CountDownLatch go = new CountDownLatch(1);

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger most = new AtomicInteger();

		final AtomicInteger finished = new AtomicInteger();

		final List<Integer> started = Collections.synchronizedList(new ArrayList<>());

		Runnable task(int id) {
			return () -> {
				this.most.accumulateAndGet(this.running.incrementAndGet(), Math::max);
				this.started.add(id);
				try {
					this.go.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				this.running.decrementAndGet();
				this.finished.incrementAndGet();
			};
		}

	}

	/** Threads named distlock-*, but for the test pool's own (named after the pool). */
	private static List<String> distlockThreads(String poolName) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith("distlock-") && !name.startsWith(poolName))
			.sorted()
			.toList();
	}

}
