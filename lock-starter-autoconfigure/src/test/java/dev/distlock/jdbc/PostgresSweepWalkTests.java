package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep of a lock table whose released rows lie behind many held ones reads each row
 * about once: each batch starts after the last row of the batch before, in primary-key
 * order. From the table's start every batch would scan the held rows again, so deleting
 * many rows beside many held ones would take time in the square of the table's size.
 * PostgreSQL's own count of the rows the table's scans returned shows which.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresSweepWalkTests {

	private static final int HELD = 3000;

	private static final int RELEASED = 3000;

	private static final int BATCH = 100;

	private final JdbcTestDatabase database = JdbcTestDatabase.postgres();

	@AfterEach
	void dropTable() {
		this.database.close();
	}

	@Test
	void aSweepReadsTheHeldRowsOnceNotOncePerBatch() throws Exception {
		String table = this.database.tableName();
		try (Connection connection = this.database.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			// held rows first in the heap, released ones after them
			statement.executeUpdate("INSERT INTO " + table
					+ " (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence) SELECT 'held:' || g, 'M', 0,"
					+ " 'owner', 'X', now() + INTERVAL '1 hour', g FROM generate_series(1, " + HELD + ") g");
			statement.executeUpdate("INSERT INTO " + table
					+ " (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence) SELECT 'released:' || g, 'M',"
					+ " 0, 'owner', 'X', TIMESTAMP WITH TIME ZONE 'epoch', g FROM generate_series(1, " + RELEASED
					+ ") g");
			// as autovacuum does for a table in use: without statistics the planner reads
			// a fresh table whole whatever the statement
			statement.execute("ANALYZE " + table);
		}
		Counts before = awaitCounts(table, 0);
		JdbcLockProvider provider = this.database.provider()
			.cleanupInterval(Duration.ZERO)
			.cleanupBatchSize(BATCH)
			.build();
		try {
			assertThat(provider.sweep()).as("rows swept").isEqualTo(RELEASED);
		}
		finally {
			provider.close();
		}
		// the server publishes a session's counts when it commits or soon after it goes
		// idle: wait until the deletes show, which come after every read of the sweep
		Counts after = awaitCounts(table, before.deleted() + RELEASED);
		long read = after.read() - before.read();
		// from the table's start each of the 30 batches would read the 3,000 held rows
		// again
		assertThat(read).as("rows the sweep's scans read (held %d, released %d, batches of %d)", HELD, RELEASED, BATCH)
			.isLessThan(4L * (HELD + RELEASED));
		assertThat(this.database.rowsWithPrefix("held:")).as("held rows stay").isEqualTo(HELD);
	}

	private Counts awaitCounts(String table, long deleted) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			Counts counts = counts(table);
			if (counts.deleted() >= deleted) {
				return counts;
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("PostgreSQL did not publish the table's counts: " + counts);
			}
			Thread.sleep(200);
		}
	}

	private Counts counts(String table) throws SQLException {
		try (Connection connection = this.database.dataSource().getConnection();
				PreparedStatement query = connection.prepareStatement("SELECT COALESCE(seq_tup_read, 0) + "
						+ "COALESCE(idx_tup_fetch, 0), n_tup_del FROM pg_stat_user_tables WHERE relname = ?")) {
			query.setString(1, table);
			try (ResultSet result = query.executeQuery()) {
				if (!result.next()) {
					return new Counts(0, -1);
				}
				return new Counts(result.getLong(1), result.getLong(2));
			}
		}
	}

	private record Counts(long read, long deleted) {
	}

}
