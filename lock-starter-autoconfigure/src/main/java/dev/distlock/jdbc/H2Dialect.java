package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * H2 2.x: an attempt's lock waits are bounded by the session's {@code LOCK_TIMEOUT}, set
 * for the attempt and restored after it, since H2 has no per-statement or per-transaction
 * form. Connections are borrowed on the caller's thread: H2 ignores network timeouts, and
 * an embedded database has no network to go silent.
 */
final class H2Dialect extends JdbcDialect {

	H2Dialect() {
		super("h2", "H2");
	}

	@Override
	boolean networked() {
		return false;
	}

	@Override
	long beginBounded(Connection connection, long millis) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			long previous;
			try (ResultSet result = statement.executeQuery("CALL LOCK_TIMEOUT()")) {
				result.next();
				previous = result.getLong(1);
			}
			statement.execute("SET LOCK_TIMEOUT " + millis);
			return previous;
		}
	}

	@Override
	void endBounded(Connection connection, long previous) throws SQLException {
		if (previous >= 0) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("SET LOCK_TIMEOUT " + previous);
			}
		}
	}

}
