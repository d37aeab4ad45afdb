package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;

import javax.sql.DataSource;

import dev.distlock.core.LockConfigurationException;
import org.jspecify.annotations.Nullable;

/**
 * A database the JDBC backend speaks: where its statements
 * ({@code operations-<scripts>.sql}) and table ({@code schema-<platform>.sql}) are, and
 * what differs beyond the SQL text: how one attempt's statements are bounded by its
 * remaining wait, and how its clock reads. One small subclass per database.
 */
abstract class JdbcDialect {

	private static final List<JdbcDialect> ALL = List.of(new PostgresDialect(), new MariadbDialect(),
			new MysqlDialect(), new H2Dialect());

	private final String platform;

	private final String errorCodesName;

	/**
	 * Creates a dialect.
	 * @param platform the name users give in {@code distlock.jdbc.platform}, and the
	 * suffix of the schema script
	 * @param errorCodesName the database's name in Spring's {@code sql-error-codes.xml}
	 */
	JdbcDialect(String platform, String errorCodesName) {
		this.platform = platform;
		this.errorCodesName = errorCodesName;
	}

	/**
	 * The name users give in {@code distlock.jdbc.platform}, and the suffix of the schema
	 * script.
	 * @return the platform name
	 */
	final String platform() {
		return this.platform;
	}

	/**
	 * The database's name in Spring's {@code sql-error-codes.xml}, for translating its
	 * errors.
	 * @return the name
	 */
	final String errorCodesName() {
		return this.errorCodesName;
	}

	/**
	 * The suffix of this dialect's {@code operations-} resource.
	 * @return the script suffix
	 */
	String scripts() {
		return platform();
	}

	/**
	 * Whether the statements of one operation go to the server in one round trip (pgjdbc
	 * sends a multi-statement query as one batch that runs in one implicit transaction);
	 * otherwise they run one by one in a transaction.
	 * @return {@code true} for PostgreSQL
	 */
	boolean batched() {
		return false;
	}

	/**
	 * Whether waiters can be woken by release notifications (PostgreSQL's LISTEN/NOTIFY).
	 * @return {@code true} for PostgreSQL
	 */
	boolean notifies() {
		return false;
	}

	/**
	 * Whether calls reach the database over a network that can go silent, so that
	 * borrowing a connection and every read on it are bounded by the call's deadline
	 * ({@link BoundedConnections}).
	 * @return {@code false} for H2, which ignores network timeouts and mostly runs in the
	 * application's process
	 */
	boolean networked() {
		return true;
	}

	/**
	 * Adapts the rendered statements of {@link #scripts()} to this database.
	 * @param statements the statements, table name in place
	 * @param tableName the table name
	 * @return the statements to run
	 */
	String adapt(String statements, String tableName) {
		return statements;
	}

	/**
	 * The SQL to run for a statement whose lock waits are bounded.
	 * @param sql the statement
	 * @param millis the most the statement may wait, or {@code 0} for no bound
	 * @return the SQL to prepare
	 */
	String bounded(String sql, long millis) {
		return sql;
	}

	/**
	 * Bounds a prepared statement where its SQL cannot.
	 * @param statement the statement
	 * @param millis the most the statement may wait, or {@code 0} for no bound
	 * @throws SQLException if the driver refused
	 */
	void bound(Statement statement, long millis) throws SQLException {
	}

	/**
	 * Sets a session's lock wait before an attempt, where the statements cannot carry it.
	 * @param connection the connection
	 * @param millis the most a statement may wait for a lock
	 * @return what {@link #endBounded} restores, or {@code -1} if nothing was changed
	 * @throws SQLException if the database failed
	 */
	long beginBounded(Connection connection, long millis) throws SQLException {
		return -1;
	}

	/**
	 * Restores what {@link #beginBounded} changed, so that a pooled connection goes back
	 * as it came.
	 * @param connection the connection
	 * @param previous the value {@link #beginBounded} returned
	 * @throws SQLException if the database failed
	 */
	void endBounded(Connection connection, long previous) throws SQLException {
	}

	/**
	 * Reads the database time that the {@code now} statement returned.
	 * @param result the result, on its row
	 * @return the instant
	 * @throws SQLException if the column could not be read
	 */
	Instant databaseTime(ResultSet result) throws SQLException {
		return result.getObject(1, OffsetDateTime.class).toInstant();
	}

	@Override
	public String toString() {
		return platform();
	}

	/**
	 * The dialect named by a platform, or detected from the database when none is named.
	 * @param dataSource where to look when no platform is named
	 * @param platform the configured platform or {@code null}
	 * @return the dialect
	 * @throws LockConfigurationException if the platform or the database is not
	 * supported, or the database could not be reached to find out
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
		for (JdbcDialect dialect : ALL) {
			if (dialect.platform().equals(name)) {
				return dialect;
			}
		}
		throw new LockConfigurationException("distlock.jdbc.platform is '" + platform
				+ "'; distlock's jdbc lock provider supports postgresql, mariadb, mysql and h2");
	}

	static JdbcDialect detect(DatabaseMetaData metaData) throws SQLException {
		String product = metaData.getDatabaseProductName();
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		for (String platform : List.of("postgresql", "mariadb", "mysql")) {
			if (name.contains(platform)) {
				return ofPlatform(platform);
			}
		}
		if (name.equals("h2")) {
			return ofPlatform("h2");
		}
		throw new LockConfigurationException("distlock's jdbc lock provider supports PostgreSQL, MariaDB, MySQL and "
				+ "H2, but the DataSource connects to " + product + " " + metaData.getDatabaseProductVersion() + " ("
				+ metaData.getURL() + "). Choose another backend with distlock.provider, or set "
				+ "distlock.jdbc.platform if this database speaks one of those dialects");
	}

}
