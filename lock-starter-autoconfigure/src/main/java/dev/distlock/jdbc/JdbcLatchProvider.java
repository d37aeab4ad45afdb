package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * Countdown latches in a table beside the lock table ({@code <table>_latch}, created by the same schema scripts),
 * named {@code jdbc}. A latch is one row, its count and its expiry in the database's time; setting it is an insert
 * (refused by the primary key when it exists), a count-down one owner-free {@code UPDATE ... SET latch_count =
 * latch_count - 1}, and the count-down that reaches zero deletes the row. Expired rows are deleted whenever a latch is
 * set, and never counted. On PostgreSQL the deletion at zero sends {@code pg_notify} on the latch table's channel,
 * which a listening connection of this provider (outside the pool) hands to the waiters; on other databases waiters
 * poll with capped backoff.
 *
 * @since 0.2.0
 */
public final class JdbcLatchProvider implements LatchProvider, AutoCloseable {

	private static final Log logger = LogFactory.getLog(JdbcLatchProvider.class);

	private final NamedParameterJdbcTemplate jdbc;

	private final String table;

	private final String now;

	private final String later;

	private final @Nullable PostgresNotifier notifier;

	private final String schemaPath;

	private volatile boolean tableFound;

	/**
	 * Creates a provider on the latch table of a lock table.
	 * @param dataSource the database
	 * @param lockTableName the lock table's name ({@code distlock.jdbc.table-name}); latches use it with {@code _latch}
	 * @param platform {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}, or {@code null} to detect it
	 * @throws LockConfigurationException if the database is not supported (a missing table is logged, and fails each
	 * use with a {@link LockConfigurationException} until it exists)
	 */
	public JdbcLatchProvider(DataSource dataSource, String lockTableName, @Nullable String platform) {
		DataSource target = LockingDataSource.unwrap(dataSource);
		JdbcDialect dialect = JdbcDialect.of(target, platform);
		this.table = JdbcLockSchema.latchTableName(JdbcLockSchema.validateTableName(lockTableName));
		this.jdbc = new NamedParameterJdbcTemplate(target);
		switch (dialect.platform()) {
			case "postgresql" -> {
				this.now = "now()";
				this.later = "now() + :expiry * INTERVAL '1 microsecond'";
			}
			case "h2" -> {
				this.now = "CURRENT_TIMESTAMP";
				this.later = "DATEADD(MICROSECOND, CAST(:expiry AS BIGINT), CURRENT_TIMESTAMP)";
			}
			default -> {
				this.now = "UTC_TIMESTAMP(6)";
				this.later = "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :expiry MICROSECOND)";
			}
		}
		this.schemaPath = JdbcLockSchema.schemaPath(dialect);
		try {
			checkTable();
		}
		catch (LockConfigurationException ex) {
			// an application that never uses latches must still start with a lock table created before they existed
			logger.warn(ex.getMessage() + "; latches fail until it exists");
		}
		this.notifier = dialect.notifies() ? new PostgresNotifier(
				LockingDataSource.listenerConnections(target, null), StoredKeys.channel(this.table)) : null;
	}

	/** Checks the table until it was found once: a table created after startup is picked up. */
	private void checkTable() {
		if (this.tableFound) {
			return;
		}
		try {
			this.jdbc.queryForList("SELECT latch_name, latch_count, expires_at FROM " + this.table + " WHERE 1 = 0",
					Map.of());
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
		this.jdbc.update("DELETE FROM " + this.table + " WHERE expires_at <= " + this.now, Map.of());
		try {
			this.jdbc.update("INSERT INTO " + this.table + " (latch_name, latch_count, expires_at) VALUES (:name, "
					+ ":count, " + this.later + ")", Map.of("name", StoredKeys.storedKey(latch), "count", count,
							"expiry", Math.max(1, expiry.toNanos() / 1000)));
			return true;
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	@Override
	public void countDown(String latch) {
		checkTable();
		Map<String, Object> name = Map.of("name", StoredKeys.storedKey(latch));
		this.jdbc.update("UPDATE " + this.table + " SET latch_count = latch_count - 1 WHERE latch_name = :name "
				+ "AND latch_count > 0 AND expires_at > " + this.now, name);
		int deleted = this.jdbc.update("DELETE FROM " + this.table + " WHERE latch_name = :name AND latch_count <= 0",
				name);
		if (deleted > 0 && this.notifier != null) {
			this.jdbc.queryForList("SELECT pg_notify(:channel, :name)",
					Map.of("channel", this.notifier.channel(), "name", StoredKeys.storedKey(latch)));
		}
	}

	@Override
	public long count(String latch) {
		checkTable();
		List<Long> counts = this.jdbc.queryForList("SELECT latch_count FROM " + this.table + " WHERE latch_name = "
				+ ":name AND expires_at > " + this.now, Map.of("name", StoredKeys.storedKey(latch)), Long.class);
		return counts.isEmpty() ? 0 : Math.max(0, counts.get(0));
	}

	@Override
	public ReleaseSubscription subscribe(String latch, Runnable listener) throws InterruptedException {
		return (this.notifier != null) ? this.notifier.subscribe(StoredKeys.storedKey(latch), listener)
				: ReleaseSubscription.NONE;
	}

	@Override
	public void close() {
		if (this.notifier != null) {
			this.notifier.close();
		}
	}

}
