package dev.distlock.jdbc;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquiring and releasing a lock looks its row up by the primary key, whatever the lock
 * table's size when the connection planned the statements. A pooled connection keeps the
 * generic plan it made after five executions until the table is analyzed again; a plan
 * made while the table is a few pages picks a sequential scan, which, kept while the
 * table grows, scans the whole table on every call (8 threads over 100,000 keys then run
 * at 0.13 times their speed over 8 keys). The pool's connections here plan generically
 * from the first execution.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresCachedPlanTests {

	@Test
	void lockCyclesOnATableThatGrewAfterItsPlansWereMadeDoNotScanIt() throws Exception {
		try (JdbcTestDatabase database = JdbcTestDatabase.postgresPlanningGenerically()) {
			String table = database.tableName();
			JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
			JdbcLockProvider provider = database.provider().cleanupInterval(Duration.ZERO).build();
			try {
				String prefix = "plan-" + UUID.randomUUID() + "-";
				cycles(provider, prefix + "small-", 20);
				// statistics of a table of one page: the statements are planned again on
				// them
				jdbc.execute("ANALYZE " + table);
				cycles(provider, prefix + "planned-", 20);
				database.insertHeldRows("filler-", 50_000);
				// a backend reports its counts when idle, within about ten seconds: wait
				// for the 40 cycles and the filler rows before, and for the cycles
				// measured after
				Map<String, Object> before = settled(jdbc, table, 50_040, 40);
				int cycles = 50;

				cycles(provider, prefix + "grown-", cycles);

				Map<String, Object> after = settled(jdbc, table, number(before, "n_tup_ins") + cycles,
						number(before, "n_tup_upd") + cycles);
				assertThat(number(after, "seq_scan") - number(before, "seq_scan"))
					.as("sequential scans of the lock table during %d lock cycles", cycles)
					.isZero();
			}
			finally {
				provider.close();
			}
		}
	}

	@Test
	void renewalsAbandonsAndSweepsOnATableThatGrewAfterTheirPlansWereMadeDoNotScanIt() throws Exception {
		// one connection, which prepares every statement at its first execution and keeps
		// that statement's plan: each plan here is made on the small table
		try (JdbcTestDatabase database = JdbcTestDatabase.postgresPlanningGenerically((config) -> {
			config.setMaximumPoolSize(1);
			config.setMinimumIdle(1);
			config.addDataSourceProperty("prepareThreshold", 1);
		})) {
			String table = database.tableName();
			JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
			JdbcLockProvider provider = database.provider().cleanupInterval(Duration.ZERO).build();
			try {
				String prefix = "other-" + UUID.randomUUID() + "-";
				assertThat(renewAbandonAndSweep(provider, prefix + "small-", 5)).as("rows swept").isEqualTo(10);
				jdbc.execute("ANALYZE " + table);
				assertThat(renewAbandonAndSweep(provider, prefix + "planned-", 5)).as("rows swept").isEqualTo(10);
				database.insertHeldRows("filler-", 50_000);
				Map<String, Object> before = settled(jdbc, table, 50_020, 30, 20);
				int cycles = 20;

				assertThat(renewAbandonAndSweep(provider, prefix + "grown-", cycles)).as("rows swept")
					.isEqualTo(2 * cycles);

				Map<String, Object> after = settled(jdbc, table, number(before, "n_tup_ins") + 2 * cycles,
						number(before, "n_tup_upd") + 3 * cycles, number(before, "n_tup_del") + 2 * cycles);
				assertThat(number(after, "seq_scan") - number(before, "seq_scan"))
					.as("sequential scans of the lock table during %d renewals, %d abandons and a sweep", cycles,
							cycles)
					.isZero();
				assertThat(database.rowsWithPrefix(prefix)).as("rows left of the locks taken").isZero();
			}
			finally {
				provider.close();
			}
		}
	}

	/**
	 * Takes, renews and releases locks, takes and abandons as many others, then sweeps.
	 * @return the rows the sweep deleted
	 */
	private static int renewAbandonAndSweep(JdbcLockProvider provider, String prefix, int count) {
		for (int i = 0; i < count; i++) {
			AttemptOutcome<JdbcHeldLock> acquired = provider.tryAcquire(
					new LockAttempt(prefix + i, LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID()));
			assertThat(acquired.isAcquired()).as("%s acquired", prefix + i).isTrue();
			assertThat(provider.renew(acquired.lock(), Duration.ofSeconds(30))).as("%s renewed", prefix + i).isTrue();
			provider.release(acquired.lock());
			LockAttempt abandoned = new LockAttempt(prefix + "abandoned-" + i, LockType.MUTEX, 1,
					Duration.ofSeconds(30), "o-" + UUID.randomUUID());
			assertThat(provider.tryAcquire(abandoned).isAcquired()).as("%s acquired", abandoned.key()).isTrue();
			provider.abandon(abandoned);
		}
		return provider.sweep();
	}

	private static void cycles(JdbcLockProvider provider, String prefix, int count) {
		for (int i = 0; i < count; i++) {
			AttemptOutcome<JdbcHeldLock> acquired = provider.tryAcquire(
					new LockAttempt(prefix + i, LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID()));
			assertThat(acquired.isAcquired()).as("%s acquired", prefix + i).isTrue();
			provider.release(acquired.lock());
		}
	}

	private static Map<String, Object> stats(JdbcTemplate jdbc, String table) {
		return jdbc.queryForMap(
				"SELECT seq_scan, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE relname = ?", table);
	}

	/** The table's counts once they show at least the rows inserted and updated. */
	private static Map<String, Object> settled(JdbcTemplate jdbc, String table, long inserted, long updated)
			throws InterruptedException {
		return settled(jdbc, table, inserted, updated, 0);
	}

	/**
	 * The table's counts once they show at least the rows inserted, updated and deleted.
	 */
	private static Map<String, Object> settled(JdbcTemplate jdbc, String table, long inserted, long updated,
			long deleted) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		Map<String, Object> stats = stats(jdbc, table);
		while ((number(stats, "n_tup_ins") < inserted || number(stats, "n_tup_upd") < updated
				|| number(stats, "n_tup_del") < deleted) && System.nanoTime() < deadline) {
			Thread.sleep(200);
			stats = stats(jdbc, table);
		}
		assertThat(number(stats, "n_tup_ins")).as("rows inserted, as counted").isGreaterThanOrEqualTo(inserted);
		assertThat(number(stats, "n_tup_upd")).as("rows updated, as counted").isGreaterThanOrEqualTo(updated);
		assertThat(number(stats, "n_tup_del")).as("rows deleted, as counted").isGreaterThanOrEqualTo(deleted);
		return stats;
	}

	private static long number(Map<String, Object> stats, String column) {
		Object value = stats.get(column);
		return (value instanceof Number n) ? n.longValue() : 0;
	}

}
