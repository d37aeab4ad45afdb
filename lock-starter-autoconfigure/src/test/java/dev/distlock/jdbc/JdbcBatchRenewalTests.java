package dev.distlock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.RenewalOutcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

/**
 * Renewals that fall due together go to the database as one JDBC batch on one connection:
 * every lease still held is extended, and a lock its owner no longer holds is reported as
 * such, on every dialect.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcBatchRenewalTests {

	private static final List<LockType> TYPES = List.of(LockType.MUTEX, LockType.READ, LockType.WRITE,
			LockType.SEMAPHORE, LockType.FAIR);

	private final JdbcTestDatabases databases = JdbcTestDatabases.all();

	@AfterAll
	void dropTables() {
		this.databases.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void renewsManyLeasesInOneBatchAndRefusesALockNoLongerHeld(String name) throws Exception {
		JdbcTestDatabase database = this.databases.get(name);
		AtomicInteger borrowed = new AtomicInteger();
		DelegatingDataSource counting = new DelegatingDataSource(database.dataSource()) {

			@Override
			public Connection getConnection() throws SQLException {
				borrowed.incrementAndGet();
				return super.getConnection();
			}

		};
		JdbcLockProvider holder = database.provider(counting).cleanupInterval(Duration.ZERO).build();
		JdbcLockProvider other = database.provider().cleanupInterval(Duration.ZERO).build();
		try {
			String prefix = "batch-" + UUID.randomUUID() + "-";
			List<JdbcHeldLock> held = new ArrayList<>();
			List<LockType> types = new ArrayList<>();
			// long enough to take 300 locks one by one, short enough to wait out below;
			// on a machine too slow for that, taken again with a lease twice as long
			Duration firstLease = Duration.ofSeconds(4);
			long firstLeaseEnds;
			while (true) {
				firstLeaseEnds = System.nanoTime() + firstLease.toNanos();
				for (int i = 0; i < 300; i++) {
					LockType type = TYPES.get(i % TYPES.size());
					AttemptOutcome<JdbcHeldLock> acquired = holder.tryAcquire(
							new LockAttempt(prefix + held.size(), type, 2, firstLease, "o-" + UUID.randomUUID()));
					assertThat(acquired.isAcquired()).as("%s %s", type, prefix + held.size()).isTrue();
					held.add(acquired.lock());
					types.add(type);
				}
				if (firstLeaseEnds - System.nanoTime() > TimeUnit.SECONDS.toNanos(1)) {
					break;
				}
				assertThat(firstLease).as("a first lease that outlasts taking the locks")
					.isLessThan(Duration.ofSeconds(30));
				for (JdbcHeldLock lock : held) {
					holder.release(lock);
				}
				held.clear();
				types.clear();
				prefix = "batch-" + UUID.randomUUID() + "-";
				firstLease = firstLease.multipliedBy(2);
			}
			int lost = 8;
			database.breakLock(prefix + lost, types.get(lost));
			int released = 11;
			holder.release(held.get(released));

			borrowed.set(0);
			RenewalOutcome[] renewed = holder.renewAll(held, Duration.ofSeconds(30));
			assertThat(borrowed).as("connections the batch borrowed").hasValue(1);

			assertThat(renewed).hasSize(held.size());
			for (int i = 0; i < renewed.length; i++) {
				assertThat(renewed[i].isRenewed()).as("%s %s renewed: %s", types.get(i), prefix + i, renewed[i])
					.isEqualTo(i != lost && i != released);
			}
			// past the first lease: only the renewed leases still keep the others out
			Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(firstLeaseEnds - System.nanoTime())) + 500);
			for (int i = 0; i < held.size(); i++) {
				LockType type = types.get(i);
				LockType blocked = (type == LockType.READ) ? LockType.WRITE : type;
				// a SEMAPHORE of 2 permits: take the other permit first, then a third
				// must be refused
				if (type == LockType.SEMAPHORE) {
					assertThat(other.tryAcquire(attempt(prefix + i, type)).isAcquired()).isTrue();
				}
				assertThat(other.tryAcquire(attempt(prefix + i, blocked)).isAcquired())
					.as("%s %s is free again", blocked, prefix + i)
					.isEqualTo(i == lost || i == released);
			}
		}
		finally {
			holder.close();
			other.close();
		}
	}

	/**
	 * One lease whose renewal the database refuses (a trigger raises an error for its
	 * row, as a constraint or a statement timeout on one row would) fails alone: the
	 * other leases of the batch are renewed.
	 */
	@Test
	void oneLeaseWhoseRenewalFailsDoesNotFailTheOthersOfItsBatch() throws Exception {
		JdbcTestDatabase database = this.databases.get("postgresql");
		JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
		JdbcLockProvider holder = database.provider().cleanupInterval(Duration.ZERO).build();
		String prefix = "batch-fail-" + UUID.randomUUID() + "-";
		String function = "dl_refuse_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
		try {
			List<JdbcHeldLock> held = mutexes(holder, prefix, 10);
			int refused = 4;
			jdbc.execute("CREATE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
					+ "RAISE EXCEPTION 'renewal refused for this test'; END $$");
			jdbc.execute("CREATE TRIGGER " + function + " BEFORE UPDATE ON " + database.tableName()
					+ " FOR EACH ROW WHEN (NEW.lock_key = '" + prefix + refused + "') EXECUTE FUNCTION " + function
					+ "()");

			RenewalOutcome[] outcomes = holder.renewAll(held, Duration.ofSeconds(30));

			assertThat(outcomes).hasSize(held.size());
			for (int i = 0; i < outcomes.length; i++) {
				if (i == refused) {
					assertThat(outcomes[i].failure()).as("outcome of the refused lease %s", outcomes[i]).isNotNull();
				}
				else {
					assertThat(outcomes[i].isRenewed()).as("lease %d renewed beside a refused one: %s", i, outcomes[i])
						.isTrue();
				}
			}
		}
		finally {
			jdbc.execute("DROP TRIGGER IF EXISTS " + function + " ON " + database.tableName());
			jdbc.execute("DROP FUNCTION IF EXISTS " + function + "()");
			holder.close();
		}
	}

	/**
	 * On PostgreSQL a batch is one statement, whatever its size: the database plans and
	 * executes it once instead of once per lease. Counted on the connection the batch
	 * borrowed (the statements it executed and the rows it added to a JDBC batch).
	 */
	@Test
	void onPostgresqlABatchOfLeasesIsRenewedByOneStatement() throws Exception {
		JdbcTestDatabase database = this.databases.get("postgresql");
		List<String> executed = new CopyOnWriteArrayList<>();
		AtomicBoolean counting = new AtomicBoolean();
		DataSource recording = recording(database.dataSource(), counting, executed, new ArrayList<>());
		JdbcLockProvider holder = database.provider(recording).cleanupInterval(Duration.ZERO).build();
		try {
			String prefix = "batch-one-" + UUID.randomUUID() + "-";
			List<JdbcHeldLock> held = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				LockType type = TYPES.get(i % TYPES.size());
				AttemptOutcome<JdbcHeldLock> acquired = holder.tryAcquire(attempt(prefix + i, type));
				assertThat(acquired.isAcquired()).as("%s %s", type, prefix + i).isTrue();
				held.add(acquired.lock());
			}
			int released = 7;
			holder.release(held.get(released));
			counting.set(true);

			RenewalOutcome[] renewed = holder.renewAll(held, Duration.ofSeconds(30));

			counting.set(false);
			for (int i = 0; i < renewed.length; i++) {
				assertThat(renewed[i].isRenewed()).as("%s renewed: %s", prefix + i, renewed[i])
					.isEqualTo(i != released);
			}
			assertThat(executed).as("what the renewal of %d leases executed", held.size()).containsExactly("execute");
		}
		finally {
			holder.close();
		}
	}

	/**
	 * Owner tokens of one process, one prefix and a sequence number each, go to
	 * PostgreSQL as the prefix once and the numbers as an array, and the owner check
	 * holds as with whole tokens: a lease whose row now has another owner of the same
	 * prefix is not renewed. The one statement runs without a transaction around it (no
	 * commit: one round trip).
	 */
	@Test
	void onPostgresqlOwnersOfOnePrefixGoAsNumbersAndTheStatementNeedsNoCommit() throws Exception {
		JdbcTestDatabase database = this.databases.get("postgresql");
		List<String> executed = new CopyOnWriteArrayList<>();
		List<String> connectionCalls = new CopyOnWriteArrayList<>();
		AtomicBoolean counting = new AtomicBoolean();
		DataSource recording = recording(database.dataSource(), counting, executed, connectionCalls);
		JdbcLockProvider holder = database.provider(recording).cleanupInterval(Duration.ZERO).build();
		try {
			String prefix = "batch-seq-" + UUID.randomUUID() + "-";
			String ownerPrefix = "p" + UUID.randomUUID() + ":";
			long sequence = 0;
			List<JdbcHeldLock> held = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				LockType type = TYPES.get(i % TYPES.size());
				AttemptOutcome<JdbcHeldLock> acquired = holder.tryAcquire(new LockAttempt(prefix + i, type, 2,
						Duration.ofSeconds(30), ownerPrefix, sequence++, System.nanoTime() + 5_000_000_000L, null));
				assertThat(acquired.isAcquired()).as("%s %s", type, prefix + i).isTrue();
				held.add(acquired.lock());
			}
			// lock 3 (a WRITE) changes hands to another owner of the same prefix
			int moved = 3;
			holder.release(held.get(moved));
			AttemptOutcome<JdbcHeldLock> successor = holder
				.tryAcquire(new LockAttempt(prefix + moved, TYPES.get(moved % TYPES.size()), 2, Duration.ofSeconds(30),
						ownerPrefix, sequence++, System.nanoTime() + 5_000_000_000L, null));
			assertThat(successor.isAcquired()).isTrue();
			List<JdbcHeldLock> batch = new ArrayList<>(held);
			batch.add(successor.lock());
			counting.set(true);

			RenewalOutcome[] renewed = holder.renewAll(batch, Duration.ofSeconds(30));

			counting.set(false);
			for (int i = 0; i < renewed.length; i++) {
				assertThat(renewed[i].isRenewed()).as("%s renewed: %s", batch.get(i), renewed[i]).isEqualTo(i != moved);
			}
			assertThat(executed).as("what the renewal executed").containsExactly("execute");
			assertThat(connectionCalls).as("what the renewal prepared and committed")
				.singleElement(STRING)
				.startsWith("prepareStatement ")
				.contains("r.sequence");
		}
		finally {
			holder.close();
		}
	}

	/**
	 * A batch's renewal does not depend on the table's statistics. A lock table that was
	 * emptied and vacuumed keeps its pages with an estimate of no rows until the next
	 * {@code ANALYZE}; refilled meanwhile (a service that takes many locks at once), a
	 * join planned on that estimate rescans the batch once per row of the table, and the
	 * batch's statement outlasts the call timeout, so every lease of the batch fails to
	 * renew (1,000 leases against 100,000 rows take 13 s). The pool's connections run
	 * generic plans from the start, as a pooled connection does after five executions of
	 * the statement.
	 */
	@Test
	void onPostgresqlABatchIsRenewedWithinTheCallTimeoutOnATableWhoseStatisticsSayItIsEmpty() throws Exception {
		try (JdbcTestDatabase database = JdbcTestDatabase.postgresPlanningGenerically()) {
			String table = database.tableName();
			JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
			jdbc.execute("ALTER TABLE " + table + " SET (vacuum_truncate = false)");
			database.insertHeldRows("gone-", 20_000);
			jdbc.update("DELETE FROM " + table);
			jdbc.execute("VACUUM " + table);
			assertThat(jdbc.queryForMap("SELECT relpages, reltuples FROM pg_class WHERE relname = ?", table))
				.as("the table's statistics: pages kept, no rows")
				.satisfies((stats) -> assertThat(((Number) stats.get("relpages")).longValue()).isPositive())
				.satisfies((stats) -> assertThat(((Number) stats.get("reltuples")).doubleValue()).isZero());
			database.insertHeldRows("held-elsewhere-", 60_000);
			JdbcLockProvider holder = database.provider().cleanupInterval(Duration.ZERO).build();
			try {
				String prefix = "batch-stale-" + UUID.randomUUID() + "-";
				List<JdbcHeldLock> held = mutexes(holder, prefix, 1000);
				int released = 5;
				holder.release(held.get(released));

				RenewalOutcome[] renewed = holder.renewAll(held, Duration.ofMinutes(10));

				for (int i = 0; i < renewed.length; i++) {
					assertThat(renewed[i].isRenewed()).as("%s renewed: %s", prefix + i, renewed[i])
						.isEqualTo(i != released);
				}
				assertThat(jdbc.queryForObject(
						"SELECT COUNT(*) FROM " + table
								+ " WHERE lock_key LIKE ? AND lease_until > now() + INTERVAL '5 minutes'",
						Long.class, prefix + "%"))
					.as("leases the batch extended")
					.isEqualTo(held.size() - 1);
			}
			finally {
				holder.close();
			}
		}
	}

	/**
	 * A batch that waits for a row another transaction holds gives up on the server when
	 * its caller does, at the call timeout: a statement still running there would keep
	 * the rows it already renewed locked, and the releases of those locks would wait
	 * behind it for as long as the other transaction stays open.
	 */
	@Test
	void onPostgresqlABatchBlockedByAStalledTransactionLetsItsOtherRowsGoAtTheCallTimeout() throws Exception {
		JdbcTestDatabase database = this.databases.get("postgresql");
		JdbcLockProvider holder = database.provider()
			.callTimeout(Duration.ofSeconds(1))
			.cleanupInterval(Duration.ZERO)
			.build();
		JdbcLockProvider other = database.provider().cleanupInterval(Duration.ZERO).build();
		String prefix = "batch-stalled-" + UUID.randomUUID() + "-";
		// the stalled row comes last in the key's order and in the batch, so the batch
		// renews the others before it waits
		List<JdbcHeldLock> held = mutexes(holder, prefix, 10);
		try (Connection stalled = database.dataSource().getConnection()) {
			stalled.setAutoCommit(false);
			try (PreparedStatement lock = stalled
				.prepareStatement("SELECT fence FROM " + database.tableName() + " WHERE lock_key = ? FOR UPDATE")) {
				lock.setString(1, StoredKeys.storedKey(prefix + 9));
				lock.executeQuery().close();
			}
			try {
				long start = System.nanoTime();
				RenewalOutcome[] renewed = holder.renewAll(held, Duration.ofMinutes(10));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the batch's time")
					.isLessThan(Duration.ofSeconds(3));
				assertThat(renewed).as("outcomes of a batch without an answer in time")
					.allSatisfy((outcome) -> assertThat(outcome.isRenewed()).isFalse());

				// released while the other transaction still stays open
				holder.release(held.get(0));
				AttemptOutcome<JdbcHeldLock> next = other.tryAcquire(attempt(prefix + 0, LockType.MUTEX));
				assertThat(next.isAcquired()).as("the released lock taken by another owner").isTrue();
				other.release(next.lock());
			}
			finally {
				stalled.rollback();
			}
		}
		finally {
			holder.close();
			other.close();
		}
	}

	/**
	 * The data source, handing out {@linkplain #recording(Connection, List, List)
	 * recording} connections while {@code counting} is set.
	 */
	private static DataSource recording(DataSource dataSource, AtomicBoolean counting, List<String> executed,
			List<String> connectionCalls) {
		return new DelegatingDataSource(dataSource) {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return counting.get() ? recording(connection, executed, connectionCalls) : connection;
			}

		};
	}

	/**
	 * The connection, recording each statement it executes and each row added to a JDBC
	 * batch, and separately the SQL it prepares and its commits and rollbacks.
	 */
	private static Connection recording(Connection connection, List<String> executed, List<String> connectionCalls) {
		return (Connection) Proxy.newProxyInstance(JdbcBatchRenewalTests.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "prepareStatement" -> connectionCalls.add("prepareStatement " + args[0]);
						case "commit", "rollback" -> connectionCalls.add(method.getName());
						default -> {
						}
					}
					Object result = invoke(connection, method, args);
					if (result instanceof PreparedStatement prepared) {
						return Proxy.newProxyInstance(JdbcBatchRenewalTests.class.getClassLoader(),
								new Class<?>[] { PreparedStatement.class }, (p, m, a) -> {
									if (m.getName().startsWith("execute") || m.getName().equals("addBatch")) {
										executed.add(m.getName());
									}
									return invoke(prepared, m, a);
								});
					}
					return result;
				});
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	/** Takes MUTEX locks {@code prefix + 0} to {@code prefix + (count - 1)}. */
	private static List<JdbcHeldLock> mutexes(JdbcLockProvider holder, String prefix, int count) {
		List<JdbcHeldLock> held = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			AttemptOutcome<JdbcHeldLock> acquired = holder.tryAcquire(attempt(prefix + i, LockType.MUTEX));
			assertThat(acquired.isAcquired()).as("%s acquired", prefix + i).isTrue();
			held.add(acquired.lock());
		}
		return held;
	}

	private static LockAttempt attempt(String key, LockType type) {
		return new LockAttempt(key, type, 2, Duration.ofSeconds(30), "o-" + UUID.randomUUID());
	}

}
