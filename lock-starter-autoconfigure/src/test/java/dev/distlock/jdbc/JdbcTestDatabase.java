package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockType;
import dev.distlock.test.TestServers;

/**
 * A database for one test class: a HikariCP pool (as in production) and a lock table with
 * a random name, dropped by {@link #close()}, so runs by other engineers on the same
 * server never meet.
 */
final class JdbcTestDatabase implements AutoCloseable {

	private final HikariDataSource dataSource;

	private final String tableName;

	private JdbcTestDatabase(HikariDataSource dataSource, String tableName) {
		this.dataSource = dataSource;
		this.tableName = tableName;
	}

	static JdbcTestDatabase postgres() {
		return postgres((config) -> {
		});
	}

	static JdbcTestDatabase postgres(Consumer<HikariConfig> customizer) {
		TestServers.JdbcServer server = TestServers.postgres();
		return create(server.url(), server.username(), server.password(), customizer);
	}

	/**
	 * A PostgreSQL lock table whose statistics change only when a test vacuums or
	 * analyzes it (autovacuum off for the table), on connections that plan generically
	 * from the first execution, as a pooled connection does after five executions of a
	 * statement: for tests of plans made on statistics that no longer fit the table.
	 */
	static JdbcTestDatabase postgresPlanningGenerically() throws SQLException {
		return postgresPlanningGenerically((config) -> {
		});
	}

	/**
	 * {@link #postgresPlanningGenerically()} with more pool settings.
	 * @param customizer applied after the planning setting
	 */
	static JdbcTestDatabase postgresPlanningGenerically(Consumer<HikariConfig> customizer) throws SQLException {
		JdbcTestDatabase database = postgres((config) -> {
			config.setConnectionInitSql("SET plan_cache_mode = force_generic_plan");
			customizer.accept(config);
		});
		try (Connection connection = database.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("ALTER TABLE " + database.tableName + " SET (autovacuum_enabled = false)");
		}
		catch (SQLException ex) {
			database.close();
			throw ex;
		}
		return database;
	}

	static JdbcTestDatabase mariadb() {
		return mariadb((config) -> {
		});
	}

	static JdbcTestDatabase mariadb(Consumer<HikariConfig> customizer) {
		TestServers.JdbcServer server = TestServers.mariadb();
		return create(server.url(), server.username(), server.password(), customizer);
	}

	static JdbcTestDatabase h2() {
		return h2((config) -> {
		});
	}

	static JdbcTestDatabase h2(Consumer<HikariConfig> customizer) {
		return create("jdbc:h2:mem:distlock-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "", customizer);
	}

	static JdbcTestDatabase create(String url, String username, String password, Consumer<HikariConfig> customizer) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(username);
		config.setPassword(password);
		config.setMaximumPoolSize(16);
		config.setMinimumIdle(2);
		config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
		config.setPoolName("distlock-test-" + UUID.randomUUID().toString().substring(0, 6));
		customizer.accept(config);
		HikariDataSource dataSource = new HikariDataSource(config);
		String table = "dl_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try {
			JdbcLockSchema.create(dataSource, table, null);
		}
		catch (SQLException ex) {
			dataSource.close();
			throw new IllegalStateException("Could not create the lock table " + table + " at " + url, ex);
		}
		return new JdbcTestDatabase(dataSource, table);
	}

	HikariDataSource dataSource() {
		return this.dataSource;
	}

	String tableName() {
		return this.tableName;
	}

	JdbcLockProviderBuilder provider() {
		return JdbcLockProvider.builder(this.dataSource).tableName(this.tableName);
	}

	JdbcLockProviderBuilder provider(DataSource dataSource) {
		return JdbcLockProvider.builder(dataSource).tableName(this.tableName);
	}

	/**
	 * Takes a lock from its holders behind their backs: its holder rows go and the head
	 * row expires (its fence stays, as after any release).
	 */
	void breakLock(String fullKey, LockType type) throws SQLException {
		String key = StoredKeys.storedKey(fullKey);
		String kind = StoredKeys.kind(type);
		try (Connection connection = this.dataSource.getConnection()) {
			try (PreparedStatement delete = connection.prepareStatement(
					"DELETE FROM " + this.tableName + " WHERE lock_key = ? AND lock_kind = ? AND slot <> 0")) {
				delete.setString(1, key);
				delete.setString(2, kind);
				delete.executeUpdate();
			}
			try (PreparedStatement expire = connection.prepareStatement("UPDATE " + this.tableName
					+ " SET lease_until = ? WHERE lock_key = ? AND lock_kind = ? AND slot = 0")) {
				expire.setObject(1, java.time.LocalDateTime.of(1971, 1, 1, 0, 0));
				expire.setString(2, key);
				expire.setString(3, kind);
				expire.executeUpdate();
			}
		}
	}

	/**
	 * Inserts the head rows of other locks, {@code prefix + 1} to {@code prefix + count},
	 * each held for an hour, in one statement (PostgreSQL).
	 */
	void insertHeldRows(String prefix, int count) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.tableName
						+ " (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence) SELECT ? || g, 'M', 0, "
						+ "'filler', 'X', now() + INTERVAL '1 hour', 0 FROM generate_series(1, ?) g")) {
			insert.setString(1, prefix);
			insert.setInt(2, count);
			insert.executeUpdate();
		}
	}

	/**
	 * Counts the rows of a lock, for checks that nothing lingers.
	 */
	int rows(String fullKey, LockType type) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement count = connection.prepareStatement(
						"SELECT COUNT(*) FROM " + this.tableName + " WHERE lock_key = ? AND lock_kind = ?")) {
			count.setString(1, StoredKeys.storedKey(fullKey));
			count.setString(2, StoredKeys.kind(type));
			try (var result = count.executeQuery()) {
				result.next();
				return result.getInt(1);
			}
		}
	}

	/**
	 * Counts the rows whose key starts with a prefix, for checks of what a test left
	 * behind.
	 */
	int rowsWithPrefix(String prefix) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement count = connection
					.prepareStatement("SELECT COUNT(*) FROM " + this.tableName + " WHERE lock_key LIKE ?")) {
			count.setString(1, prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
			try (var result = count.executeQuery()) {
				result.next();
				return result.getInt(1);
			}
		}
	}

	@Override
	public void close() {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS " + this.tableName);
			statement.execute("DROP SEQUENCE IF EXISTS " + JdbcLockSchema.sequenceName(this.tableName));
			statement.execute("DROP TABLE IF EXISTS " + JdbcLockSchema.latchTableName(this.tableName));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not drop " + this.tableName, ex);
		}
		finally {
			this.dataSource.close();
		}
	}

}
