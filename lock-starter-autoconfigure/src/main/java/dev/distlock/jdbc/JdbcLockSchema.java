package dev.distlock.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import dev.distlock.core.LockConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * The lock table of the JDBC backend: its name rules and its creation scripts, one per
 * database ({@code schema-postgresql.sql}, {@code schema-mariadb.sql} for MariaDB and
 * MySQL, {@code schema-h2.sql}, beside this class). The scripts name the table
 * {@value #DEFAULT_TABLE_NAME} and its fencing sequence {@code distlock_lock_fence}, and
 * the table of countdown latches {@code distlock_lock_latch};
 * {@link #render(String, String)} puts in another name (and {@code <name>_fence},
 * {@code <name>_latch}). The table name is the only SQL text distlock does not bind, so
 * it must match {@code [A-Za-z_][A-Za-z0-9_]*}, optionally schema-qualified, at most 57
 * characters (63 for the schema), so that the sequence name fits every database.
 *
 * @since 0.1.0
 */
public final class JdbcLockSchema {

	/**
	 * The table name in the scripts and the default of {@code distlock.jdbc.table-name}.
	 */
	public static final String DEFAULT_TABLE_NAME = "distlock_lock";

	/** How long the check at startup waits for the database. */
	private static final Duration STARTUP_CHECK_TIMEOUT = Duration.ofSeconds(30);

	/** Suffix of the table's fencing sequence. */
	private static final String SEQUENCE_SUFFIX = "_fence";

	/** Suffix of the table of countdown latches beside the lock table. */
	private static final String LATCH_SUFFIX = "_latch";

	private static final Pattern TABLE_NAME = Pattern
		.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,56}");

	private static final Pattern DEFAULT_NAME_IN_SCRIPT = Pattern.compile("(?<![A-Za-z0-9_.])" + DEFAULT_TABLE_NAME
			+ "(" + SEQUENCE_SUFFIX + "|" + LATCH_SUFFIX + ")?(?![A-Za-z0-9_])");

	private JdbcLockSchema() {
	}

	/**
	 * Checks a table name.
	 * @param tableName the name, optionally {@code schema.table}
	 * @return the name
	 * @throws LockConfigurationException if it is not a plain identifier
	 */
	public static String validateTableName(@Nullable String tableName) {
		if (tableName == null || !TABLE_NAME.matcher(tableName).matches()) {
			throw new LockConfigurationException("distlock.jdbc.table-name '" + tableName + "' is not a valid table "
					+ "name: use letters, digits and underscores, not starting with a digit, optionally qualified by "
					+ "a schema (schema.table), at most 57 characters for the table and 63 for the schema");
		}
		return tableName;
	}

	/**
	 * The fencing sequence of a table: its name followed by {@code _fence}, in the same
	 * schema.
	 * @param tableName the validated table name
	 * @return the sequence name
	 */
	public static String sequenceName(String tableName) {
		return tableName + SEQUENCE_SUFFIX;
	}

	/**
	 * The table of countdown latches beside a lock table: its name followed by
	 * {@code _latch}, in the same schema.
	 * @param tableName the validated lock table name
	 * @return the latch table name
	 * @since 0.2.0
	 */
	public static String latchTableName(String tableName) {
		return tableName + LATCH_SUFFIX;
	}

	/**
	 * The classpath location of the creation script of a database.
	 * @param dataSource the database, to detect its type when no platform is given
	 * @param platform {@code postgresql}, {@code mariadb}, {@code mysql}, {@code h2}, or
	 * {@code null} to detect
	 * @return the location, e.g.
	 * {@code classpath:dev/distlock/jdbc/schema-postgresql.sql}
	 */
	public static String scriptLocation(DataSource dataSource, @Nullable String platform) {
		return "classpath:" + schemaPath(JdbcDialect.of(dataSource, platform));
	}

	/**
	 * Replaces the default table name in a script with another, and the default sequence
	 * name with that table's.
	 * @param script a script naming the table {@value #DEFAULT_TABLE_NAME}
	 * @param tableName the table name to use
	 * @return the script for that table
	 */
	public static String render(String script, String tableName) {
		validateTableName(tableName);
		return DEFAULT_NAME_IN_SCRIPT.matcher(script)
			.replaceAll((match) -> Matcher.quoteReplacement((match.group(1) == null) ? tableName
					: (match.group(1).equals(LATCH_SUFFIX) ? latchTableName(tableName) : sequenceName(tableName))));
	}

	/**
	 * Creates the lock table if it does not exist, with the script of the database the
	 * data source connects to. For applications without Spring Boot's schema
	 * initialization, and for tests.
	 * @param dataSource the database
	 * @param tableName the table name
	 * @param platform the platform, or {@code null} to detect it
	 * @throws SQLException if the script failed
	 */
	public static void create(DataSource dataSource, String tableName, @Nullable String platform) throws SQLException {
		JdbcDialect dialect = JdbcDialect.of(dataSource, platform);
		String script = render(load(schemaPath(dialect)), tableName);
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			for (String sql : LockStatements.split(script)) {
				statement.execute(sql);
			}
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
		}
	}

	/**
	 * Checks that the table has the expected columns and its sequence exists.
	 * @param runner runs the checks
	 * @param statements the dialect's statements
	 * @param dialect the dialect
	 * @param tableName the table name
	 * @throws LockConfigurationException if not, saying how to create or upgrade them
	 */
	static void check(LockStatementRunner runner, LockStatements statements, JdbcDialect dialect, String tableName) {
		// at startup the pool may still be opening its first connection: as long as
		// HikariCP's default timeout
		long deadline = System.nanoTime() + STARTUP_CHECK_TIMEOUT.toNanos();
		try {
			for (LockStatements.Statement check : statements.get("check").statements()) {
				runner.query(check, (result) -> null, deadline);
			}
		}
		catch (DataAccessException ex) {
			throw new LockConfigurationException("distlock's lock table " + tableName + " or its sequence "
					+ sequenceName(tableName) + " is missing or has other columns ("
					+ ex.getMostSpecificCause().getMessage() + "). Create or upgrade them with " + schemaPath(dialect)
					+ " from the distlock jar (docs/jdbc.md), or let Spring Boot do it with "
					+ "distlock.jdbc.initialize-schema=always", ex);
		}
	}

	static String schemaPath(JdbcDialect dialect) {
		return "dev/distlock/jdbc/schema-" + dialect.platform() + ".sql";
	}

	static String load(String resourcePath) {
		try (InputStream in = JdbcLockSchema.class.getClassLoader().getResourceAsStream(resourcePath)) {
			if (in == null) {
				throw new IllegalStateException("Missing resource " + resourcePath);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + resourcePath, ex);
		}
	}

}
