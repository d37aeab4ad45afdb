package dev.distlock.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

/**
 * The lock table of {@code distlock-jdbc-postgres}: one table kept across runs (created
 * by distlock's schema initializer), whose rows of a run are deleted after it.
 */
final class DistlockJdbcTable {

	static final String NAME = "bench_distlock_lock";

	private DistlockJdbcTable() {
	}

	static void delete(BenchConfig config, String runId) throws Exception {
		try (Connection connection = DriverManager.getConnection(config.pgUrl(), config.pgUser(), config.pgPassword());
				PreparedStatement statement = connection
					.prepareStatement("DELETE FROM " + NAME + " WHERE position(? in lock_key) > 0")) {
			statement.setString(1, runId);
			statement.executeUpdate();
		}
	}

}
