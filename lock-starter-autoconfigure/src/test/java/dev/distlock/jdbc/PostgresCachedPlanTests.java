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
 * generic plan it made after five executions until the table is analyzed again; made
 * while the table was a few pages, a sequential scan looked cheapest, and kept while the
 * table grew it scanned the whole table on every call (found in the key spread benchmark:
 * 8 threads over 100,000 keys slowed to 0.13 times their speed over 8 keys). The pool's
 * connections here plan generically from the first execution.
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
				// for
				// the 40 cycles and the filler rows before, and for the cycles measured
				// after
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

	private static void cycles(JdbcLockProvider provider, String prefix, int count) {
		for (int i = 0; i < count; i++) {
			AttemptOutcome<JdbcHeldLock> acquired = provider.tryAcquire(
					new LockAttempt(prefix + i, LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID()));
			assertThat(acquired.isAcquired()).as("%s acquired", prefix + i).isTrue();
			provider.release(acquired.lock());
		}
	}

	private static Map<String, Object> stats(JdbcTemplate jdbc, String table) {
		return jdbc.queryForMap("SELECT seq_scan, n_tup_ins, n_tup_upd FROM pg_stat_user_tables WHERE relname = ?",
				table);
	}

	/** The table's counts once they show at least the rows inserted and updated. */
	private static Map<String, Object> settled(JdbcTemplate jdbc, String table, long inserted, long updated)
			throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		Map<String, Object> stats = stats(jdbc, table);
		while ((number(stats, "n_tup_ins") < inserted || number(stats, "n_tup_upd") < updated)
				&& System.nanoTime() < deadline) {
			Thread.sleep(200);
			stats = stats(jdbc, table);
		}
		assertThat(number(stats, "n_tup_ins")).as("rows inserted, as counted").isGreaterThanOrEqualTo(inserted);
		assertThat(number(stats, "n_tup_upd")).as("rows updated, as counted").isGreaterThanOrEqualTo(updated);
		return stats;
	}

	private static long number(Map<String, Object> stats, String column) {
		Object value = stats.get(column);
		return (value instanceof Number n) ? n.longValue() : 0;
	}

}
