package dev.distlock.jdbc;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.test.AbstractLockProviderContractTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The provider contract on one SQL dialect; each provider stands for another process on
 * the same table. Every provider sweeps the table every {@link #CLEANUP_INTERVAL}, so the
 * contract's concurrency and fencing cases also run while rows are being deleted under
 * them; the cases here add what the table keeps after release.
 */
abstract class AbstractJdbcLockProviderContractTests extends AbstractLockProviderContractTests<JdbcLockProvider> {

	/**
	 * The residue window of these tests: short, so that rows go while the contract runs.
	 */
	static final Duration CLEANUP_INTERVAL = Duration.ofMillis(100);

	/** What a test may leave behind once the window has passed (issue 23). */
	private static final int MAX_ROWS_LEFT = 20;

	/**
	 * The database of the test class.
	 * @return the database
	 */
	protected abstract JdbcTestDatabase database();

	@Override
	protected JdbcLockProvider createProvider() {
		return database().provider().cleanupInterval(CLEANUP_INTERVAL).build();
	}

	@Override
	protected void breakLock(String fullKey, LockType type) throws Exception {
		database().breakLock(fullKey, type);
	}

	@Test
	void twoThousandReleasedKeysLeaveAtMostTwentyRowsAndTheirTokensKeepRising() throws Exception {
		LockTemplate process = newProcess();
		Map<String, Long> tokens = new HashMap<>();
		for (int i = 0; i < 2000; i++) {
			String key = "order:" + i;
			try (Lease lease = process.acquire(LockRequest.of(key))) {
				tokens.put(key, lease.fencingToken());
			}
		}
		int left = database().rowsWithPrefix(this.prefix);
		long released = System.nanoTime();
		awaitRowsAtMost(MAX_ROWS_LEFT);
		System.out.printf("%s: %d of 2000 rows left after the last release, at most %d after %d ms (window %d ms)%n",
				database().tableName(), left, MAX_ROWS_LEFT, (System.nanoTime() - released) / 1_000_000,
				CLEANUP_INTERVAL.toMillis());
		String again = "order:0";
		awaitTrue("the row of " + again + " is deleted", Duration.ofSeconds(30),
				() -> rows(again, LockType.MUTEX) == 0);
		try (Lease lease = process.acquire(LockRequest.of(again))) {
			assertThat(lease.fencingToken()).as("token of a key locked again after its row was deleted")
				.isGreaterThan(tokens.get(again));
		}
	}

	@Test
	void everyTypeLeavesNoRowBehindOnceReleasedAndSwept() throws Exception {
		LockTemplate process = newProcess();
		Map<String, Long> tokens = new HashMap<>();
		for (LockType type : LockType.values()) {
			for (int i = 0; i < 20; i++) {
				LockRequest.Builder request = LockRequest.builder(type + ":" + i).type(type);
				if (type == LockType.SEMAPHORE) {
					request.permits(2);
				}
				try (Lease lease = process.acquire(request.build())) {
					tokens.merge(type.name(), lease.fencingToken(), Math::max);
				}
			}
		}
		awaitRowsAtMost(0);
		for (LockType type : LockType.values()) {
			LockRequest.Builder request = LockRequest.builder(type + ":0").type(type);
			if (type == LockType.SEMAPHORE) {
				request.permits(2);
			}
			try (Lease lease = process.acquire(request.build())) {
				assertThat(lease.fencingToken()).as("%s token after its rows were deleted", type)
					.isGreaterThan(tokens.get(type.name()));
			}
		}
	}

	@Test
	void expiredLocksThatNobodyTakesAgainAreSweptToo() throws Exception {
		JdbcLockProvider provider = createProvider();
		try {
			for (LockType type : LockType.values()) {
				for (int i = 0; i < 10; i++) {
					LockAttempt attempt = new LockAttempt(this.prefix + "crashed:" + type + ":" + i, type, 1,
							Duration.ofMillis(200), "crashed-" + UUID.randomUUID());
					var acquisition = provider.tryAcquire(attempt);
					assertThat(acquisition.isAcquired()).as("%s %d granted", type, i).isTrue();
					// the holder dies: no release, no renewal
				}
			}
			assertThat(database().rowsWithPrefix(this.prefix)).as("rows while the leases run").isPositive();
			awaitRowsAtMost(0);
		}
		finally {
			provider.close();
		}
	}

	@Test
	void sweptRowsAreCountedForAMeter() throws Exception {
		// the only provider on the table now, and it sweeps only when asked
		JdbcLockProvider provider = database().provider().cleanupInterval(Duration.ZERO).build();
		try (LockTemplate process = new LockTemplate(List.of(provider), provider.name(), settings(), List.of())) {
			for (int i = 0; i < 1000; i++) {
				process.acquire(LockRequest.of("counted:" + i)).release();
			}
			assertThat(provider.sweptRows()).isZero();
			long start = System.nanoTime();
			int swept = provider.sweep();
			System.out.printf("%s: one sweep deleted %d rows in %d ms (batches of %d)%n", database().tableName(), swept,
					(System.nanoTime() - start) / 1_000_000, JdbcLockProviderBuilder.DEFAULT_CLEANUP_BATCH_SIZE);
			assertThat(swept).isGreaterThanOrEqualTo(1000);
			assertThat(provider.sweptRows()).isEqualTo(swept);
			assertThat(database().rowsWithPrefix(this.prefix + "counted:")).isZero();
		}
		finally {
			provider.close();
		}
	}

	private void awaitRowsAtMost(int rows) throws InterruptedException {
		awaitTrue("at most " + rows + " rows with prefix " + this.prefix, Duration.ofSeconds(60), () -> {
			try {
				return database().rowsWithPrefix(this.prefix) <= rows;
			}
			catch (java.sql.SQLException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	private int rows(String key, LockType type) {
		try {
			return database().rows(this.prefix + key, type);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
