package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Real errors from real databases, read through Spring's translation: a lock wait that
 * runs out and a unique-key race are contention; a killed session is a broken connection;
 * a missing table is neither.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlFailuresTests {

	private final JdbcTestDatabases databases = JdbcTestDatabases.all();

	@AfterAll
	void dropTables() {
		this.databases.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void aLockWaitThatRunsOutIsContention(String database) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		JdbcDialect dialect = JdbcDialect.of(db.dataSource(), null);
		String key = insertHeadRow(db);
		try (Connection holder = db.dataSource().getConnection(); Connection other = db.dataSource().getConnection()) {
			holder.setAutoCommit(false);
			update(holder, db, key, null, 0);
			long previous = dialect.beginBounded(other, 200);
			try {
				update(other, db, key, dialect, 200);
				fail("the row was locked");
			}
			catch (SQLException ex) {
				assertThat(SqlFailures.isContention(translate(dialect, ex))).as("%s", ex).isTrue();
			}
			finally {
				dialect.endBounded(other, previous);
				holder.rollback();
				if (dialect.platform().equals("postgresql")) {
					try (Statement statement = other.createStatement()) {
						statement.execute("RESET lock_timeout");
					}
				}
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void aDuplicateKeyIsContentionAndAMissingTableIsNeither(String database) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		JdbcDialect dialect = JdbcDialect.of(db.dataSource(), null);
		String key = insertHeadRow(db);
		try (Connection connection = db.dataSource().getConnection()) {
			SQLException duplicate = failure(() -> insertHeadRow(connection, db.tableName(), key));
			assertThat(SqlFailures.isContention(translate(dialect, duplicate))).as("%s", duplicate).isTrue();
			SQLException missing = failure(() -> {
				try (Statement statement = connection.createStatement()) {
					statement.execute("SELECT 1 FROM no_such_table_"
							+ UUID.randomUUID().toString().substring(0, 8).replace("-", ""));
				}
			});
			DataAccessException translated = translate(dialect, missing);
			assertThat(SqlFailures.isContention(translated) || SqlFailures.isBrokenConnection(translated))
				.as("%s", missing)
				.isFalse();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "mariadb" })
	void aKilledSessionIsABrokenConnection(String database) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		JdbcDialect dialect = JdbcDialect.of(db.dataSource(), null);
		try (Connection victim = db.dataSource().getConnection(); Connection killer = db.dataSource().getConnection()) {
			long id;
			try (Statement statement = victim.createStatement();
					ResultSet result = statement.executeQuery(
							database.equals("postgresql") ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()")) {
				result.next();
				id = result.getLong(1);
			}
			try (Statement statement = killer.createStatement()) {
				statement.execute(database.equals("postgresql") ? "SELECT pg_terminate_backend(" + id + ")"
						: "KILL CONNECTION " + id);
			}
			SQLException broken = failure(() -> {
				try (Statement statement = victim.createStatement()) {
					statement.execute("SELECT 1");
				}
			});
			// the pool evicts the connection when it is closed: the error's SQLState
			// marks it dead
			assertThat(SqlFailures.isBrokenConnection(translate(dialect, broken))).as("%s", broken).isTrue();
		}
	}

	private static DataAccessException translate(JdbcDialect dialect, SQLException ex) {
		return new SqlFailures(dialect).translate("test", ex);
	}

	interface SqlAction {

		void run() throws SQLException;

	}

	private static SQLException failure(SqlAction action) {
		try {
			action.run();
		}
		catch (SQLException ex) {
			return ex;
		}
		throw new AssertionError("expected an SQLException");
	}

	private static String insertHeadRow(JdbcTestDatabase db) throws SQLException {
		String key = "failure-" + UUID.randomUUID();
		try (Connection connection = db.dataSource().getConnection()) {
			insertHeadRow(connection, db.tableName(), key);
		}
		return key;
	}

	private static void insertHeadRow(Connection connection, String table, String key) throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement(
				"INSERT INTO " + table + " (lock_key, lock_kind, slot, lease_until, fence) VALUES (?, 'M', 0, ?, 0)")) {
			insert.setString(1, key);
			insert.setObject(2, java.time.LocalDateTime.of(1971, 1, 1, 0, 0));
			insert.executeUpdate();
		}
	}

	private static void update(Connection connection, JdbcTestDatabase db, String key, JdbcDialect dialect, long millis)
			throws SQLException {
		String sql = "UPDATE " + db.tableName() + " SET fence = fence + 1 WHERE lock_key = ? AND lock_kind = 'M'";
		if (dialect != null && dialect.platform().equals("postgresql")) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("SET lock_timeout = " + millis);
			}
		}
		try (PreparedStatement update = connection
			.prepareStatement((dialect != null) ? dialect.bounded(sql, millis) : sql)) {
			update.setString(1, key);
			update.executeUpdate();
		}
	}

}
