package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A client stalled in the middle of a transaction that holds a lock's head row (here a
 * raw connection that ran {@code SELECT ... FOR UPDATE} and went quiet) must not hold up
 * other acquisitions of that lock past their wait: a try-once or a 500 ms acquisition
 * returns busy within its wait + 1 s on every database, whatever the database's own lock
 * wait timeout (50 s on InnoDB, none on PostgreSQL).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcStalledTransactionTests {

	private final JdbcTestDatabases databases = JdbcTestDatabases.all();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterAll
	void dropTables() {
		this.executor.shutdownNow();
		this.databases.close();
	}

	static Stream<Arguments> cases() {
		return Stream.of("h2", "postgresql", "mariadb")
			.flatMap((database) -> Stream.of(LockType.values())
				.flatMap((type) -> Stream.of(Duration.ZERO, Duration.ofMillis(500))
					.map((wait) -> Arguments.of(database, type, wait))));
	}

	@ParameterizedTest(name = "{0} {1} wait {2}")
	@MethodSource("cases")
	void aStalledTransactionOnTheHeadRowDelaysAnAcquisitionByAtMostItsWait(String database, LockType type,
			Duration wait) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		JdbcLockProvider provider = db.provider().cleanupInterval(Duration.ZERO).build();
		LockTemplate process = new LockTemplate(List.of(provider), "jdbc", LockSettings.defaults().withKeyPrefix(""),
				List.of());
		String key = "stalled-" + UUID.randomUUID();
		// the lock's head row exists (released), as it does for any lock used before
		process.acquire(request(key, type, Duration.ZERO)).release();
		try (Connection stalled = db.dataSource().getConnection()) {
			stalled.setAutoCommit(false);
			try (PreparedStatement lock = stalled.prepareStatement("SELECT fence FROM " + db.tableName()
					+ " WHERE lock_key = ? AND lock_kind = ? AND slot = 0 FOR UPDATE")) {
				lock.setString(1, StoredKeys.storedKey(key));
				lock.setString(2, StoredKeys.kind(type));
				try (ResultSet row = lock.executeQuery()) {
					assertThat(row.next()).as("head row to hold").isTrue();
				}
			}
			long start = System.nanoTime();
			// a lock wait that ran out is contention: busy, never an error
			Future<Optional<Lease>> attempt = this.executor.submit(() -> process.tryAcquire(request(key, type, wait)));
			Duration bound = wait.plusSeconds(1);
			try {
				Optional<Lease> lease = attempt.get(bound.toMillis(), TimeUnit.MILLISECONDS);
				assertThat(lease).as("granted while another transaction holds the head row").isEmpty();
			}
			catch (TimeoutException ex) {
				fail("%s %s with wait %s did not return within %s while a stalled transaction held its row", database,
						type, wait, bound);
			}
			finally {
				stalled.rollback();
				attempt.cancel(true);
			}
			System.out.printf("%s %s wait %d ms: returned after %d ms%n", database, type, wait.toMillis(),
					(System.nanoTime() - start) / 1_000_000);
		}
		finally {
			process.close();
			provider.close();
		}
	}

	private static LockRequest request(String key, LockType type, Duration wait) {
		LockRequest.Builder builder = LockRequest.builder(key).type(type).waitTime(wait);
		if (type == LockType.SEMAPHORE) {
			builder.permits(1);
		}
		return builder.build();
	}

}
