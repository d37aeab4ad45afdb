package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;

/**
 * Countdown latches, named {@code jdbc}, in a table beside the lock table (its name plus
 * {@code _latch}, created by the same schema scripts). A latch is one row with its count
 * and its expiry in the database's time: setting it is an insert (refused when the latch
 * exists), a count-down is one owner-free {@code UPDATE}, and the count-down that reaches
 * zero deletes the row. Expired rows are never counted and are deleted whenever a latch
 * is set. On PostgreSQL the deletion at zero notifies the waiters through
 * {@code pg_notify}; on other databases waiters poll with capped backoff.
 * <p>
 * Latch calls use connections of their own and commit before they return, so a call
 * inside the caller's {@code @Transactional} method does not join its transaction: a
 * count-down is visible at once and survives a rollback. Every call ends by the call
 * timeout, a silent network included. See docs/latch.md.
 *
 * @since 0.2.0
 */
public final class JdbcLatchProvider implements LatchProvider, AutoCloseable {

	private static final Log logger = LogFactory.getLog(JdbcLatchProvider.class);

	private final BoundedConnections connections;

	private final SqlFailures failures;

	private final String table;

	private final String now;

	private final String later;

	private final @Nullable PostgresNotifier notifier;

	private final String schemaPath;

	private volatile boolean tableFound;

	/**
	 * Creates a provider on the latch table of a lock table, with calls bounded by
	 * {@link JdbcLockProviderBuilder#DEFAULT_CALL_TIMEOUT}.
	 * @param dataSource the database
	 * @param lockTableName the lock table's name ({@code distlock.jdbc.table-name});
	 * latches use it with {@code _latch}
	 * @param platform {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2},
	 * or {@code null} to detect it
	 * @throws LockConfigurationException if the database is not supported (a missing
	 * table is logged, and fails each use with a {@link LockConfigurationException} until
	 * it exists)
	 */
	public JdbcLatchProvider(DataSource dataSource, String lockTableName, @Nullable String platform) {
		this(dataSource, lockTableName, platform, JdbcLockProviderBuilder.DEFAULT_CALL_TIMEOUT);
	}

	/**
	 * Creates a provider on the latch table of a lock table.
	 * @param dataSource the database
	 * @param lockTableName the lock table's name ({@code distlock.jdbc.table-name});
	 * latches use it with {@code _latch}
	 * @param platform {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2},
	 * or {@code null} to detect it
	 * @param callTimeout the longest time one call may take
	 * ({@code distlock.call-timeout})
	 * @throws LockConfigurationException if the database is not supported (a missing
	 * table is logged, and fails each use with a {@link LockConfigurationException} until
	 * it exists)
	 * @since 0.3.0
	 */
	public JdbcLatchProvider(DataSource dataSource, String lockTableName, @Nullable String platform,
			Duration callTimeout) {
		DataSource target = LockingDataSource.unwrap(dataSource);
		JdbcDialect dialect = JdbcDialect.of(target, platform);
		this.table = JdbcLockSchema.latchTableName(JdbcLockSchema.validateTableName(lockTableName));
		this.connections = new BoundedConnections(target, callTimeout, dialect);
		this.failures = new SqlFailures(dialect);
		switch (dialect.platform()) {
			case "postgresql" -> {
				this.now = "now()";
				this.later = "now() + ? * INTERVAL '1 microsecond'";
			}
			case "h2" -> {
				this.now = "CURRENT_TIMESTAMP";
				this.later = "DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
			}
			default -> {
				this.now = "UTC_TIMESTAMP(6)";
				this.later = "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL ? MICROSECOND)";
			}
		}
		this.schemaPath = JdbcLockSchema.schemaPath(dialect);
		try {
			checkTable();
		}
		catch (LockConfigurationException ex) {
			// an application that never uses latches must still start with a lock table
			// created before they existed
			logger.warn(ex.getMessage() + "; latches fail until it exists");
		}
		this.notifier = dialect.notifies() ? new PostgresNotifier(LockingDataSource.listenerConnections(target, null),
				StoredKeys.channel(this.table), callTimeout) : null;
	}

	/**
	 * Checks the table until it was found once: a table created after startup is picked
	 * up.
	 */
	private void checkTable() {
		if (this.tableFound) {
			return;
		}
		try {
			call("check", (connection) -> {
				update(connection, "SELECT latch_name, latch_count, expires_at FROM " + this.table + " WHERE 1 = 0");
				return null;
			});
			this.tableFound = true;
		}
		catch (DataAccessException ex) {
			throw new LockConfigurationException("distlock's latch table " + this.table + " is missing or has other "
					+ "columns (" + ex.getMostSpecificCause().getMessage() + "). Create it with " + this.schemaPath
					+ " from the distlock jar (docs/jdbc.md), or let Spring Boot do it with "
					+ "distlock.jdbc.initialize-schema=always", ex);
		}
	}

	@Override
	public String name() {
		return "jdbc";
	}

	@Override
	public boolean trySetCount(String latch, long count, Duration expiry) {
		checkTable();
		String name = StoredKeys.storedKey(latch);
		try {
			return call("trySetCount", (connection) -> {
				update(connection, "DELETE FROM " + this.table + " WHERE expires_at <= " + this.now);
				update(connection, "INSERT INTO " + this.table + " (latch_name, latch_count, expires_at) VALUES (?, ?, "
						+ this.later + ")", name, count, Math.max(1, expiry.toNanos() / 1000));
				return true;
			});
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	@Override
	public void countDown(String latch) {
		checkTable();
		String name = StoredKeys.storedKey(latch);
		call("countDown", (connection) -> {
			update(connection, "UPDATE " + this.table + " SET latch_count = latch_count - 1 WHERE latch_name = ? "
					+ "AND latch_count > 0 AND expires_at > " + this.now, name);
			int deleted = update(connection, "DELETE FROM " + this.table + " WHERE latch_name = ? AND latch_count <= 0",
					name);
			if (deleted > 0 && this.notifier != null) {
				update(connection, "SELECT pg_notify(?, ?)", this.notifier.channel(), name);
			}
			return null;
		});
	}

	@Override
	public long count(String latch) {
		checkTable();
		String name = StoredKeys.storedKey(latch);
		Long count = call("count", (connection) -> {
			try (PreparedStatement select = prepare(connection,
					"SELECT latch_count FROM " + this.table + " WHERE latch_name = ? AND expires_at > " + this.now,
					name); ResultSet result = select.executeQuery()) {
				return result.next() ? result.getLong(1) : 0L;
			}
		});
		return Math.max(0, (count != null) ? count : 0);
	}

	@Override
	public ReleaseSubscription subscribe(String latch, Runnable listener) throws InterruptedException {
		return (this.notifier != null)
				? this.notifier.subscribe(StoredKeys.storedKey(latch), listener, this.connections.deadline())
				: ReleaseSubscription.NONE;
	}

	/** One call on a connection of its own, in autocommit, by the call timeout. */
	private <T> T call(String operation, ConnectionWork<T> work) {
		String task = "distlock latch " + operation + " on " + this.table;
		try (BoundedConnections.Bounded bounded = this.connections.open(this.connections.deadline(), task)) {
			Connection connection = bounded.connection();
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw this.failures.translate(task, ex);
		}
	}

	/** Work on a latch call's connection. */
	@FunctionalInterface
	private interface ConnectionWork<T> {

		T run(Connection connection) throws SQLException;

	}

	private static PreparedStatement prepare(Connection connection, String sql, Object... values) throws SQLException {
		PreparedStatement prepared = connection.prepareStatement(sql);
		try {
			for (int i = 0; i < values.length; i++) {
				prepared.setObject(i + 1, values[i]);
			}
			return prepared;
		}
		catch (SQLException ex) {
			prepared.close();
			throw ex;
		}
	}

	private static int update(Connection connection, String sql, Object... values) throws SQLException {
		try (PreparedStatement prepared = prepare(connection, sql, values)) {
			return prepared.execute() ? 0 : prepared.getUpdateCount();
		}
	}

	@Override
	public void close() {
		if (this.notifier != null) {
			this.notifier.close();
		}
	}

}
