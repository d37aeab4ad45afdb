package dev.distlock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.support.SharedTimer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.dao.TransientDataAccessResourceException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC backend keeps no thread per provider or table: providers on three tables,
 * sweeping in the background, share one timer thread and the io threads, their sweeps
 * still delete the released rows, and closing a provider unschedules its sweep.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcThreadsTests {

	private static final int LOCKS = 20;

	@Test
	void providersOnThreeTablesShareTheBackendsThreadsAndStillSweep() throws Exception {
		List<JdbcTestDatabase> databases = List.of(JdbcTestDatabase.postgres(), JdbcTestDatabase.postgres(),
				JdbcTestDatabase.postgres());
		List<JdbcLockProvider> providers = new ArrayList<>();
		try {
			for (JdbcTestDatabase database : databases) {
				JdbcLockProvider provider = database.provider().cleanupInterval(Duration.ofSeconds(1)).build();
				providers.add(provider);
				for (int i = 0; i < LOCKS; i++) {
					LockAttempt attempt = new LockAttempt("threads-" + UUID.randomUUID(), LockType.MUTEX, 1,
							Duration.ofSeconds(30), "o-" + UUID.randomUUID());
					AttemptOutcome<JdbcHeldLock> held = provider.tryAcquire(attempt);
					assertThat(held.isAcquired()).isTrue();
					provider.release(held.lock());
				}
			}
			awaitTrue(() -> providers.stream().allMatch((provider) -> provider.sweptRows() >= LOCKS),
					Duration.ofSeconds(15));
			for (JdbcLockProvider provider : providers) {
				assertThat(provider.sweptRows()).as("rows swept by %s", provider).isGreaterThanOrEqualTo(LOCKS);
			}
			// the io threads of the acquisitions end once idle; the sweeps go on
			// meanwhile
			List<String> threads = jdbcThreads();
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(JdbcThreads.IO_KEEP_ALIVE_SECONDS + 7);
			while (threads.size() > 2 && System.nanoTime() < end) {
				Thread.sleep(50);
				threads = jdbcThreads();
			}
			assertThat(threads)
				.as("threads named distlock-jdbc* while %d providers are open: %s", providers.size(), threads)
				.hasSizeLessThanOrEqualTo(2);
			List<Future<?>> sweeps = new ArrayList<>();
			for (JdbcLockProvider provider : providers) {
				Future<?> sweep = provider.sweepSchedule();
				assertThat(sweep).as("sweep of %s", provider).isNotNull();
				assertThat(SharedTimer.isScheduled(sweep)).as("sweep of %s on the shared timer", provider).isTrue();
				sweeps.add(sweep);
			}
			providers.forEach(JdbcLockProvider::close);
			for (Future<?> sweep : sweeps) {
				assertThat(sweep.isCancelled()).isTrue();
				assertThat(SharedTimer.isScheduled(sweep)).as("a closed provider's sweep left on the timer").isFalse();
			}
			assertThat(providers).allMatch((provider) -> provider.sweepSchedule() == null);
		}
		finally {
			providers.forEach(JdbcLockProvider::close);
			databases.forEach(JdbcTestDatabase::close);
		}
	}

	@Test
	void cleanupsRunOldestFirstAndRetryOnTheSharedThreads() throws Exception {
		List<String> cleaned = new ArrayList<>();
		int[] failuresLeft = { 3 };
		OwnerCleanup cleanup = new OwnerCleanup((target, owner) -> {
			synchronized (cleaned) {
				if (failuresLeft[0]-- > 0) {
					throw new TransientDataAccessResourceException("no answer");
				}
				cleaned.add(target.storedKey());
			}
		}, "dl_threads");
		try {
			for (String key : List.of("a", "b", "c")) {
				cleanup.add(new LockTarget(key, "M", ""), "o-" + key);
			}
			awaitTrue(() -> cleanup.pending() == 0, Duration.ofSeconds(10));
			synchronized (cleaned) {
				assertThat(cleaned).containsExactly("a", "b", "c");
			}
			assertThat(cleanup.retry()).as("a retry after the failures").isNotNull();
			assertThat(jdbcThreads()).noneMatch((name) -> name.contains("cleanup"));
		}
		finally {
			cleanup.close();
		}
	}

	@Test
	void closingCancelsTheScheduledRetry() throws Exception {
		OwnerCleanup cleanup = new OwnerCleanup((target, owner) -> {
			throw new TransientDataAccessResourceException("no answer");
		}, "dl_threads");
		cleanup.add(new LockTarget("a", "M", ""), "o");
		awaitTrue(() -> cleanup.retry() != null, Duration.ofSeconds(10));
		cleanup.close();
		Future<?> retry = cleanup.retry();
		assertThat(retry).isNotNull();
		assertThat(SharedTimer.isScheduled(retry)).as("a closed cleanup's retry left on the timer").isFalse();
		cleanup.add(new LockTarget("b", "M", ""), "o");
		assertThat(cleanup.pending()).isEqualTo(1);
	}

	private static void awaitTrue(BooleanSupplier condition, Duration timeout) throws InterruptedException {
		long end = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean() && System.nanoTime() < end) {
			Thread.sleep(20);
		}
	}

	private static List<String> jdbcThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith("distlock-jdbc"))
			.sorted()
			.toList();
	}

}
