package dev.distlock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

import javax.sql.DataSource;

import dev.distlock.core.LockConfigurationException;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link JdbcLockProvider}:
 * {@code JdbcLockProvider.builder(dataSource).tableName("locks").build()}. Building
 * detects the database (one connection) unless a platform is given, checks that the table
 * and its sequence exist, and starts the background sweep.
 *
 * @since 0.1.0
 */
public final class JdbcLockProviderBuilder {

	/** Default time a FAIR waiter keeps its place in the queue without trying again. */
	public static final Duration DEFAULT_FAIR_WAITER_TIMEOUT = Duration.ofSeconds(5);

	/** Default time between two sweeps of released and expired rows. */
	public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofSeconds(30);

	/** Default number of rows one sweep transaction deletes at most. */
	public static final int DEFAULT_CLEANUP_BATCH_SIZE = 500;

	/**
	 * Default longest time a call other than an acquisition may take, and an acquisition
	 * beyond its wait.
	 */
	public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Default shortest time a statement of an acquire attempt may wait for a row lock.
	 */
	public static final Duration DEFAULT_MIN_LOCK_WAIT = Duration.ofMillis(200);

	final DataSource dataSource;

	String tableName = JdbcLockSchema.DEFAULT_TABLE_NAME;

	@Nullable String platform;

	Duration fairWaiterTimeout = DEFAULT_FAIR_WAITER_TIMEOUT;

	Duration minLockWait = DEFAULT_MIN_LOCK_WAIT;

	Duration callTimeout = DEFAULT_CALL_TIMEOUT;

	Duration cleanupInterval = DEFAULT_CLEANUP_INTERVAL;

	int cleanupBatchSize = DEFAULT_CLEANUP_BATCH_SIZE;

	Clock clock = Clock.systemUTC();

	boolean notifications = true;

	@Nullable DataSource listenerDataSource;

	boolean checkTable = true;

	JdbcLockProviderBuilder(DataSource dataSource) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
	}

	/**
	 * The lock table (default {@value JdbcLockSchema#DEFAULT_TABLE_NAME}).
	 * @param tableName the table name, optionally {@code schema.table}
	 * @return this builder
	 */
	public JdbcLockProviderBuilder tableName(String tableName) {
		this.tableName = tableName;
		return this;
	}

	/**
	 * The database type, instead of detecting it: {@code postgresql}, {@code mariadb},
	 * {@code mysql} or {@code h2}.
	 * @param platform the platform or {@code null} to detect
	 * @return this builder
	 */
	public JdbcLockProviderBuilder platform(@Nullable String platform) {
		this.platform = platform;
		return this;
	}

	/**
	 * How long a FAIR waiter keeps its place without trying again (default 5 seconds);
	 * longer than the longest poll interval.
	 * @param fairWaiterTimeout the timeout
	 * @return this builder
	 */
	public JdbcLockProviderBuilder fairWaiterTimeout(Duration fairWaiterTimeout) {
		this.fairWaiterTimeout = fairWaiterTimeout;
		return this;
	}

	/**
	 * The shortest time a statement of an acquire attempt may wait for a row lock another
	 * transaction holds (default 200 ms). Statements may wait until the acquisition's
	 * deadline, but at least this long, so a try-once still waits out another attempt's
	 * short transaction. Set on PostgreSQL as {@code lock_timeout}, on MariaDB as
	 * {@code max_statement_time}, on H2 as {@code LOCK_TIMEOUT}, each for the attempt
	 * only; MySQL gets a JDBC query timeout in whole seconds.
	 * @param minLockWait the minimum lock wait
	 * @return this builder
	 */
	public JdbcLockProviderBuilder minLockWait(Duration minLockWait) {
		this.minLockWait = minLockWait;
		return this;
	}

	/**
	 * The longest time one call may take (default 1 second,
	 * {@code distlock.call-timeout}): a release, a renewal, a health check, a sweep
	 * batch; an acquisition's calls end by its wait's deadline plus this. It bounds
	 * borrowing the connection (whatever the pool's own timeout) and every read on it
	 * ({@link java.sql.Connection#setNetworkTimeout}), so a call on a network gone silent
	 * fails then instead of hanging; a shorter timeout of the driver's own (pgjdbc's
	 * {@code socketTimeout}) still applies.
	 * @param callTimeout the call timeout, positive
	 * @return this builder
	 */
	public JdbcLockProviderBuilder callTimeout(Duration callTimeout) {
		this.callTimeout = callTimeout;
		return this;
	}

	/**
	 * How often released and expired rows are deleted (default 30 seconds): a released
	 * lock's row stays at most about this long. {@link Duration#ZERO} turns the
	 * background sweep off (for a table swept by a job of your own, or while instances of
	 * an earlier snapshot, which cannot handle deleted rows, still use the table).
	 * @param cleanupInterval the interval
	 * @return this builder
	 */
	public JdbcLockProviderBuilder cleanupInterval(Duration cleanupInterval) {
		this.cleanupInterval = cleanupInterval;
		return this;
	}

	/**
	 * How many rows one sweep transaction deletes at most (default 500); a run deletes
	 * batches until one comes back short.
	 * @param cleanupBatchSize the batch size
	 * @return this builder
	 */
	public JdbcLockProviderBuilder cleanupBatchSize(int cleanupBatchSize) {
		this.cleanupBatchSize = cleanupBatchSize;
		return this;
	}

	/**
	 * The local clock, used only to report
	 * {@link JdbcLockProvider#databaseClockOffset()}: locking reads the database's clock.
	 * @param clock the clock
	 * @return this builder
	 */
	public JdbcLockProviderBuilder clock(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "clock");
		return this;
	}

	/**
	 * Whether waiters on PostgreSQL are woken by LISTEN/NOTIFY (default) or poll. Either
	 * way this provider's releases notify the waiters that other providers registered on
	 * the same table.
	 * @param notifications {@code false} to poll
	 * @return this builder
	 */
	public JdbcLockProviderBuilder notifications(boolean notifications) {
		this.notifications = notifications;
		return this;
	}

	/**
	 * Where the PostgreSQL listening connection comes from. By default it is opened with
	 * the settings of a HikariCP pool, outside the pool, or else borrowed from the data
	 * source for the provider's life.
	 * @param listenerDataSource an unpooled data source for the listening connection
	 * @return this builder
	 */
	public JdbcLockProviderBuilder listenerDataSource(DataSource listenerDataSource) {
		this.listenerDataSource = listenerDataSource;
		return this;
	}

	/**
	 * Whether building checks that the table and its sequence exist (default
	 * {@code true}).
	 * @param checkTable {@code false} to skip the check
	 * @return this builder
	 */
	public JdbcLockProviderBuilder checkTable(boolean checkTable) {
		this.checkTable = checkTable;
		return this;
	}

	/**
	 * Builds the provider.
	 * @return the provider
	 * @throws LockConfigurationException if a setting is out of range, the table name,
	 * platform or database is unsupported, or the table or its sequence is missing
	 */
	public JdbcLockProvider build() {
		positive(this.fairWaiterTimeout, "fairWaiterTimeout");
		positive(this.minLockWait, "minLockWait");
		positive(this.callTimeout, "callTimeout");
		if (Objects.requireNonNull(this.cleanupInterval, "cleanupInterval").isNegative()) {
			throw new LockConfigurationException("cleanupInterval must not be negative, was " + this.cleanupInterval);
		}
		if (this.cleanupBatchSize < 1) {
			throw new LockConfigurationException("cleanupBatchSize must be positive, was " + this.cleanupBatchSize);
		}
		return new JdbcLockProvider(this);
	}

	private static void positive(Duration duration, String name) {
		Objects.requireNonNull(duration, name);
		if (duration.isNegative() || duration.isZero()) {
			throw new LockConfigurationException(name + " must be positive, was " + duration);
		}
	}

}
