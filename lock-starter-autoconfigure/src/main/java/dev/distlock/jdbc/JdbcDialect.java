package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import dev.distlock.core.LockConfigurationException;
import org.jspecify.annotations.Nullable;

/**
 * The databases the JDBC backend speaks, each with its statements ({@code operations-<scripts>.sql}) and table
 * ({@code schema-<platform>.sql}). MySQL uses MariaDB's statements, written to the common subset, with the
 * database time in place of the sequence it lacks.
 */
enum JdbcDialect {

	POSTGRESQL("postgresql", "postgresql", true),

	MARIADB("mariadb", "mariadb", false),

	MYSQL("mysql", "mariadb", false),

	H2("h2", "h2", false);

	/** What MySQL draws a fencing token from: the database time in microseconds. */
	private static final String MYSQL_TOKEN = "CAST(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', "
			+ "UTC_TIMESTAMP(6)) AS SIGNED)";

	private final String platform;

	private final String scripts;

	private final boolean batched;

	JdbcDialect(String platform, String scripts, boolean batched) {
		this.platform = platform;
		this.scripts = scripts;
		this.batched = batched;
	}

	/**
	 * The SQL to run for a statement bounded by a lock wait: MariaDB bounds each statement with
	 * {@code SET STATEMENT max_statement_time} (sub-second, and it interrupts InnoDB row lock waits).
	 * @param sql the statement
	 * @param millis the most the statement may wait, or {@code 0} for no bound
	 * @return the SQL to prepare
	 */
	String bounded(String sql, long millis) {
		if (this != MARIADB || millis <= 0) {
			return sql;
		}
		return "SET STATEMENT max_statement_time=" + (millis / 1000) + "." + String.format("%03d", millis % 1000)
				+ " FOR " + sql;
	}

	/**
	 * Bounds a prepared statement where the SQL cannot: MySQL, whose {@code innodb_lock_wait_timeout} is not
	 * settable per statement, gets a JDBC query timeout (whole seconds, at least 1).
	 * @param statement the statement
	 * @param millis the most the statement may wait, or {@code 0} for no bound
	 * @throws SQLException if the driver refused
	 */
	void bound(java.sql.Statement statement, long millis) throws SQLException {
		if (this == MYSQL && millis > 0) {
			statement.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
		}
	}

	/**
	 * Sets a session's lock wait before an attempt where neither of the above exists: H2's {@code LOCK_TIMEOUT}.
	 * PostgreSQL's statements set {@code lock_timeout} themselves, for their transaction only.
	 * @param connection the connection
	 * @param millis the most a statement may wait for a lock
	 * @return what {@link #endBounded} restores, or {@code -1} if nothing was changed
	 * @throws SQLException if the database failed
	 */
	long beginBounded(Connection connection, long millis) throws SQLException {
		if (this != H2) {
			return -1;
		}
		try (java.sql.Statement statement = connection.createStatement()) {
			long previous;
			try (java.sql.ResultSet result = statement.executeQuery("CALL LOCK_TIMEOUT()")) {
				result.next();
				previous = result.getLong(1);
			}
			statement.execute("SET LOCK_TIMEOUT " + millis);
			return previous;
		}
	}

	/**
	 * Restores what {@link #beginBounded} changed, so the pooled connection goes back as it came.
	 * @param connection the connection
	 * @param previous the value {@link #beginBounded} returned
	 * @throws SQLException if the database failed
	 */
	void endBounded(Connection connection, long previous) throws SQLException {
		if (previous >= 0) {
			try (java.sql.Statement statement = connection.createStatement()) {
				statement.execute("SET LOCK_TIMEOUT " + previous);
			}
		}
	}

	/**
	 * Adapts the rendered statements of {@link #scripts()} to this database.
	 * @param statements the statements, table name in place
	 * @param tableName the table name
	 * @return the statements to run
	 */
	String adapt(String statements, String tableName) {
		if (this != MYSQL) {
			return statements;
		}
		return statements.replace("NEXTVAL(" + JdbcLockSchema.sequenceName(tableName) + ")", MYSQL_TOKEN);
	}

	/**
	 * The name users give in {@code distlock.jdbc.platform}.
	 * @return the platform name
	 */
	String platform() {
		return this.platform;
	}

	/**
	 * The suffix of this dialect's {@code operations-} resource.
	 * @return the script suffix
	 */
	String scripts() {
		return this.scripts;
	}

	/**
	 * Whether the statements of one operation go to the server in one round trip (pgjdbc sends a multi-statement
	 * query as one batch that runs in one implicit transaction); otherwise they run one by one in a transaction.
	 * @return {@code true} for PostgreSQL
	 */
	boolean batched() {
		return this.batched;
	}

	/**
	 * The dialect named by a platform, or detected from the database when none is named.
	 * @param dataSource where to look when no platform is named
	 * @param platform the configured platform or {@code null}
	 * @return the dialect
	 * @throws LockConfigurationException if the platform or the database is not supported, or the database could
	 * not be reached to find out
	 */
	static JdbcDialect of(DataSource dataSource, @Nullable String platform) {
		if (platform != null && !platform.isBlank()) {
			return ofPlatform(platform);
		}
		try (Connection connection = dataSource.getConnection()) {
			return detect(connection.getMetaData());
		}
		catch (SQLException ex) {
			throw new LockConfigurationException("Could not connect to the database to find its type for distlock's "
					+ "jdbc lock provider (" + ex.getMessage() + "); set distlock.jdbc.platform to one of "
					+ "postgresql, mariadb, mysql or h2 to skip the detection", ex);
		}
	}

	static JdbcDialect ofPlatform(String platform) {
		String name = platform.trim().toLowerCase(Locale.ROOT);
		for (JdbcDialect dialect : values()) {
			if (dialect.platform.equals(name)) {
				return dialect;
			}
		}
		throw new LockConfigurationException("distlock.jdbc.platform is '" + platform
				+ "'; distlock's jdbc lock provider supports postgresql, mariadb, mysql and h2");
	}

	static JdbcDialect detect(DatabaseMetaData metaData) throws SQLException {
		String product = metaData.getDatabaseProductName();
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		if (name.contains("postgresql")) {
			return POSTGRESQL;
		}
		if (name.contains("mariadb")) {
			return MARIADB;
		}
		if (name.contains("mysql")) {
			return MYSQL;
		}
		if (name.equals("h2")) {
			return H2;
		}
		throw new LockConfigurationException("distlock's jdbc lock provider supports PostgreSQL, MariaDB, MySQL and "
				+ "H2, but the DataSource connects to " + product + " " + metaData.getDatabaseProductVersion()
				+ " (" + metaData.getURL() + "). Choose another backend with distlock.provider, or set "
				+ "distlock.jdbc.platform if this database speaks one of those dialects");
	}

}
