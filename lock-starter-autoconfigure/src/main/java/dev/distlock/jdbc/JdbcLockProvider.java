package dev.distlock.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransactionRollbackException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

import dev.distlock.core.Acquisition;
import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.TryOnceLockProvider;
import dev.distlock.core.LockType;
import dev.distlock.core.LockWaiter;
import dev.distlock.core.ReleaseSubscription;
import dev.distlock.jdbc.LockStatements.Operation;
import dev.distlock.jdbc.LockStatements.Statement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.util.ClassUtils;

/**
 * The JDBC backend, named {@code jdbc}: every {@link LockType} as rows of one table (see {@link JdbcLockSchema}) on
 * PostgreSQL, MariaDB, MySQL 8 or H2. Leases are the database's time ({@code now()}, {@code UTC_TIMESTAMP(6)},
 * {@code CURRENT_TIMESTAMP}) and every comparison happens in SQL, so clients whose clocks disagree still exclude each
 * other. Fencing tokens come from one database sequence per table ({@code <table>_fence}), drawn by each grant while
 * it holds the lock's head row, so they strictly increase per lock even across the deletion of its rows. Only the
 * owner token can extend or release a lease ({@code WHERE owner = ?}); an expired lease is taken over by the
 * statement that acquires.
 * <p>
 * <b>Residue.</b> A release expires its row rather than deleting it (on InnoDB, deletes racing inserts of the same
 * key deadlock); a background sweep deletes released and expired rows every
 * {@linkplain Builder#cleanupInterval(Duration) cleanup interval}, in small batches that skip locked rows, so a
 * released lock leaves no row behind for longer than about that interval. {@link #sweptRows()} counts them.
 * <p>
 * <b>Own connections.</b> Every operation borrows a connection straight from the {@link DataSource} (never through
 * {@code DataSourceUtils}, which would join a Spring-managed transaction), runs in its own short transaction or in
 * autocommit, and returns it. A lock row written inside the caller's business transaction would be invisible to
 * other processes until commit and would vanish on rollback; here it is committed before {@code acquire} returns,
 * whatever transaction the calling thread is in. A {@code TransactionAwareDataSourceProxy} is unwrapped to its target
 * for the same reason. The pool therefore needs one connection beyond what a thread holding a transaction uses.
 * <p>
 * <b>Round trips.</b> On PostgreSQL the statements of an operation are sent as one batch that runs as one implicit
 * transaction: one round trip per acquire attempt, release and renewal, for every type. On MariaDB/MySQL a MUTEX
 * attempt is one {@code INSERT ... ON DUPLICATE KEY UPDATE} (the token comes back as the generated key, so the URL
 * needs no {@code useAffectedRows}); the other types run a short transaction of a few statements. Contention
 * surfacing as a deadlock, a unique-key race or a lock timeout rolls the attempt back and counts as "busy", never as
 * an error.
 * <p>
 * <b>Waiting.</b> On PostgreSQL, releases {@code pg_notify} the table's channel and one listening connection per
 * provider, opened outside the pool, wakes the waiters of that lock; elsewhere waiters poll with the core's capped,
 * jittered backoff. FAIR waiters hold a ticket (a row) refreshed on every attempt; a ticket not refreshed within the
 * {@linkplain Builder#fairWaiterTimeout(Duration) waiter timeout} is dropped, so a dead waiter does not block the
 * queue.
 *
 * @since 0.1.0
 */
public final class JdbcLockProvider implements TryOnceLockProvider<JdbcLockProvider.JdbcHeldLock> {

	/** Default time a FAIR waiter keeps its place in the queue without trying again. */
	public static final Duration DEFAULT_FAIR_WAITER_TIMEOUT = Duration.ofSeconds(5);

	/** Default time between two sweeps of released and expired rows. */
	public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofSeconds(30);

	/** Default number of rows one sweep transaction deletes at most. */
	public static final int DEFAULT_CLEANUP_BATCH_SIZE = 500;

	/** Default shortest time a statement of an acquire attempt may wait for a row lock. */
	public static final Duration DEFAULT_MIN_LOCK_WAIT = Duration.ofMillis(200);

	private static final Log logger = LogFactory.getLog(JdbcLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	/** Keys up to this length are stored as they are; longer ones as a prefix and a SHA-256, 255 characters. */
	static final int MAX_PLAIN_KEY = 190;

	/** The longest lease the database is asked to compute, so no date overflows. */
	private static final long MAX_LEASE_MICROS = Duration.ofDays(3650).toNanos() / 1000;

	private static final int MAX_OWNER = 100;

	/** Attempts of an idempotent operation when its pooled connection turns out to be dead. */
	private static final int CONNECTION_ATTEMPTS = 3;

	private static final boolean SPRING_JDBC_PRESENT = ClassUtils.isPresent(
			"org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy",
			JdbcLockProvider.class.getClassLoader());

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			JdbcLockProvider.class.getClassLoader());

	private final DataSource dataSource;

	private final String tableName;

	private final JdbcDialect dialect;

	private final LockStatements statements;

	private final Duration fairWaiterTimeout;

	private final Duration minLockWait;

	private final Clock clock;

	private final @Nullable PostgresNotifier notifier;

	private final LongAdder contended = new LongAdder();

	private final LockTableSweeper sweeper;

	/** Attempts known to hold nothing, whose {@link #abandon} is a no-op; weak, in case the core never abandons. */
	private final Set<LockAttempt> settled = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

	private JdbcLockProvider(Builder builder) {
		this.dataSource = lockingDataSource(builder.dataSource);
		this.tableName = JdbcLockSchema.validateTableName(builder.tableName);
		this.dialect = JdbcDialect.of(this.dataSource, builder.platform);
		this.statements = LockStatements.load(this.dialect, this.tableName);
		this.fairWaiterTimeout = positive(builder.fairWaiterTimeout, "fairWaiterTimeout");
		this.minLockWait = positive(builder.minLockWait, "minLockWait");
		this.clock = builder.clock;
		this.notifier = (this.dialect == JdbcDialect.POSTGRESQL && builder.notifications)
				? new PostgresNotifier(listenerConnections(builder), channel(this.tableName)) : null;
		if (builder.cleanupInterval.isNegative()) {
			throw new LockConfigurationException("cleanupInterval must not be negative, was " + builder.cleanupInterval);
		}
		if (builder.cleanupBatchSize < 1) {
			throw new LockConfigurationException("cleanupBatchSize must be positive, was " + builder.cleanupBatchSize);
		}
		this.sweeper = new LockTableSweeper(this.dataSource, this.statements, this.tableName, builder.cleanupInterval,
				builder.cleanupBatchSize);
		if (builder.checkTable) {
			checkTable();
		}
		this.sweeper.start();
	}

	/**
	 * Starts building a provider on a data source.
	 * @param dataSource where the lock table lives
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource) {
		return new Builder(dataSource);
	}

	@Override
	public String name() {
		return "jdbc";
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	/**
	 * The table this provider keeps its locks in.
	 * @return the table name
	 */
	public String tableName() {
		return this.tableName;
	}

	/**
	 * The platform in use: {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}.
	 * @return the platform name
	 */
	public String platform() {
		return this.dialect.platform();
	}

	/**
	 * How far the database's clock is ahead of this provider's clock, for operators (locking itself never reads the
	 * local clock: leases are the database's time).
	 * @return database time minus local time
	 * @throws SQLException if the database could not be asked
	 */
	public Duration databaseClockOffset() throws SQLException {
		Statement now = this.statements.get("now").statements().get(0);
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(now.sql());
				ResultSet result = statement.executeQuery()) {
			result.next();
			Instant local = this.clock.instant();
			Instant database = (this.dialect == JdbcDialect.MARIADB || this.dialect == JdbcDialect.MYSQL)
					? result.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC)
					: result.getObject(1, OffsetDateTime.class).toInstant();
			return Duration.between(local, database);
		}
	}

	/**
	 * Runs the core's wait loop with every statement of every attempt bounded by the time left until the waiter's
	 * deadline (at least the {@linkplain Builder#minLockWait(Duration) minimum lock wait}), so that a client stalled
	 * in a transaction holding the lock's rows delays this acquisition by no more than its wait.
	 */
	@Override
	public @Nullable JdbcHeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		BoundedAcquisition acquisition = new BoundedAcquisition(
				new LockWaitBudget(waiter.deadlineNanos(), this.minLockWait));
		JdbcHeldLock held;
		try {
			held = waiter.await(acquisition, attempt);
		}
		catch (Exception ex) {
			if (acquisition.holdsNothing(attempt.type())) {
				this.settled.add(attempt);
			}
			throw ex;
		}
		if (held == null && acquisition.holdsNothing(attempt.type())) {
			this.settled.add(attempt);
		}
		return held;
	}

	/**
	 * One attempt; its statements may wait for row locks for the {@linkplain Builder#minLockWait(Duration) minimum
	 * lock wait} only, since no deadline is known.
	 */
	@Override
	public Acquisition<JdbcHeldLock> tryAcquire(LockAttempt attempt) throws Exception {
		return tryAcquire(attempt, new BoundedAcquisition(new LockWaitBudget(System.nanoTime(), this.minLockWait)));
	}

	private Acquisition<JdbcHeldLock> tryAcquire(LockAttempt attempt, BoundedAcquisition acquisition) throws Exception {
		LockWaitBudget budget = acquisition.budget;
		Target target = target(attempt);
		Operation operation = this.statements.get(acquireOperation(attempt.type()));
		Map<String, Object> parameters = target.parameters(attempt.owner());
		parameters.put("lease", micros(attempt.lease()));
		parameters.put("wait", micros(this.fairWaiterTimeout));
		parameters.put("permits", attempt.permits());
		parameters.put("lockTimeout", String.valueOf(budget.remainingMillis()));
		Result result;
		// nothing was sent when this fails, so there is nothing to clean up, and no point in trying again
		Connection connection = connection(operation);
		acquisition.reachedDatabase = true;
		try (connection) {
			result = run(connection, operation, parameters, budget);
		}
		catch (SQLException ex) {
			if (isContention(ex)) {
				// the database rolled the attempt back: another attempt won the race
				this.contended.increment();
				if (logger.isTraceEnabled()) {
					logger.trace("Contention on " + attempt + ", counted as busy: " + ex);
				}
				return Acquisition.busy();
			}
			if (isBrokenConnection(ex)) {
				// the outcome is unknown; once nothing is held under this owner, it is simply busy
				try {
					abandonOrThrow(target, attempt.owner());
				}
				catch (CannotGetJdbcConnectionException cleanup) {
					// the database is gone: the rows, if any, expire with their lease; no point in trying again
					ex.addSuppressed(cleanup);
					throw ex;
				}
				catch (SQLException | RuntimeException cleanup) {
					acquisition.unresolved = true;
					ex.addSuppressed(cleanup);
					throw ex;
				}
				logger.debug("Connection lost during " + attempt + "; counted as busy after cleaning up", ex);
				return Acquisition.busy();
			}
			throw ex;
		}
		if (result.token() != null) {
			long token = result.token();
			long slot = (attempt.type() == LockType.READ || attempt.type() == LockType.SEMAPHORE) ? token : 0;
			return Acquisition.acquired(new JdbcHeldLock(attempt.key(), target, slot, attempt.owner(), token));
		}
		Long waitMillis = result.waitMillis();
		return Acquisition.busy((waitMillis != null && waitMillis > 0) ? Duration.ofMillis(waitMillis) : null);
	}

	/**
	 * How many attempts lost a race inside the database (a deadlock, a unique-key race, a lock timeout) and were
	 * reported busy, for tests and diagnostics.
	 * @return the number of such attempts so far
	 */
	long contendedAttempts() {
		return this.contended.sum();
	}

	/**
	 * Rows of released and expired locks this provider's sweeps have deleted so far, for a meter (a Micrometer
	 * {@code FunctionCounter} over this method, for instance).
	 * @return the number of rows deleted
	 */
	public long sweptRows() {
		return this.sweeper.sweptRows();
	}

	/**
	 * Deletes the rows of released and expired locks now, in batches, as the background sweep does every cleanup
	 * interval; for operators and tests.
	 * @return the number of rows deleted
	 * @throws SQLException if the database failed
	 */
	public int sweep() throws SQLException {
		return this.sweeper.sweep();
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
		PostgresNotifier current = this.notifier;
		if (current == null) {
			return ReleaseSubscription.NONE;
		}
		return current.subscribe(target(attempt).payload(), listener);
	}

	@Override
	public boolean renew(JdbcHeldLock held, Duration lease) throws Exception {
		Map<String, Object> parameters = held.target().parameters(held.owner());
		parameters.put("slot", held.slot());
		parameters.put("lease", micros(lease));
		return retryOnBrokenConnection(this.statements.get("renew"), parameters, null).updateCount() > 0;
	}

	@Override
	public void release(JdbcHeldLock held) throws Exception {
		Map<String, Object> parameters = held.target().parameters(held.owner());
		parameters.put("slot", held.slot());
		retryOnBrokenConnection(this.statements.get("release"), parameters, null);
	}

	/**
	 * Cleans up after an attempt the core gave up on, unless this provider knows it holds nothing: a busy outcome
	 * holds nothing except a FAIR ticket, and an attempt that never reached the database (no connection to be had)
	 * left nothing there; trying to clean it up would wait for the pool a second time.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
		if (this.settled.remove(attempt)) {
			return;
		}
		try {
			abandonOrThrow(target(attempt), attempt.owner());
		}
		catch (SQLException | DataAccessException ex) {
			logger.debug("Could not clean up after " + attempt + "; its rows expire with their lease", ex);
		}
	}

	private void abandonOrThrow(Target target, String owner) throws SQLException {
		// part of a failed acquisition: a stalled transaction on the lock's rows must not hold it up either
		retryOnBrokenConnection(this.statements.get("abandon"), target.parameters(owner),
				new LockWaitBudget(System.nanoTime(), this.minLockWait));
	}

	@Override
	public void close() {
		this.sweeper.close();
		if (this.notifier != null) {
			this.notifier.close();
		}
	}

	@Override
	public String toString() {
		return "JdbcLockProvider[" + this.dialect.platform() + ", table " + this.tableName + "]";
	}

	// ---------------------------------------------------------------- running statements

	private Result retryOnBrokenConnection(Operation operation, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		for (int attempt = 1;; attempt++) {
			try (Connection connection = connection(operation)) {
				return run(connection, operation, parameters, budget);
			}
			catch (SQLException ex) {
				// idempotent operations only: a pool may hand out connections whose session was killed; a pool
				// that has no connection to give (connection() threw) is not asked again
				if (attempt >= CONNECTION_ATTEMPTS || !isBrokenConnection(ex)) {
					throw ex;
				}
				logger.debug("Retrying " + operation.name() + " on another connection", ex);
			}
		}
	}

	private Connection connection(Operation operation) {
		try {
			return this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			throw new CannotGetJdbcConnectionException("No connection for distlock's " + operation.name() + " on "
					+ this.tableName + ": " + ex.getMessage(), ex);
		}
	}

	private Result run(Connection connection, Operation operation, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		long previous = (budget != null) ? this.dialect.beginBounded(connection, budget.remainingMillis()) : -1;
		try {
			return runBounded(connection, operation, parameters, budget);
		}
		finally {
			this.dialect.endBounded(connection, previous);
		}
	}

	private Result runBounded(Connection connection, Operation operation, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		List<Statement> statements = operation.statements();
		if (this.dialect.batched() || statements.size() == 1) {
			Statement statement = this.dialect.batched() ? operation.joined() : statements.get(0);
			boolean autoCommit = connection.getAutoCommit();
			if (!autoCommit) {
				connection.setAutoCommit(true);
			}
			try {
				return operation.generatedKey() ? runForKey(connection, statement, parameters, budget)
						: runOne(connection, statement, parameters, budget);
			}
			finally {
				if (!autoCommit) {
					connection.setAutoCommit(false);
				}
			}
		}
		boolean autoCommit = connection.getAutoCommit();
		if (autoCommit) {
			connection.setAutoCommit(false);
		}
		try {
			Result result = Result.NONE;
			for (Statement statement : statements) {
				result = runOne(connection, statement, parameters, budget);
			}
			connection.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			try {
				connection.rollback();
			}
			catch (SQLException rollback) {
				ex.addSuppressed(rollback);
			}
			throw ex;
		}
		finally {
			if (autoCommit) {
				connection.setAutoCommit(true);
			}
		}
	}

	private PreparedStatement prepare(Connection connection, Statement statement, @Nullable LockWaitBudget budget,
			boolean generatedKey) throws SQLException {
		long millis = (budget != null) ? budget.remainingMillis() : 0;
		String sql = this.dialect.bounded(statement.sql(), millis);
		PreparedStatement prepared = generatedKey
				? connection.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS)
				: connection.prepareStatement(sql);
		this.dialect.bound(prepared, millis);
		return prepared;
	}

	private Result runOne(Connection connection, Statement statement, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		try (PreparedStatement prepared = prepare(connection, statement, budget, false)) {
			bind(prepared, statement, parameters);
			Result result = Result.NONE;
			int updates = 0;
			boolean isResultSet = prepared.execute();
			while (true) {
				if (isResultSet) {
					try (ResultSet rows = prepared.getResultSet()) {
						result = Result.of(rows, updates);
					}
				}
				else {
					int count = prepared.getUpdateCount();
					if (count == -1) {
						break;
					}
					updates = count;
					result = new Result(count, result.token(), result.waitMillis());
				}
				isResultSet = prepared.getMoreResults();
			}
			return result;
		}
	}

	private Result runForKey(Connection connection, Statement statement, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		try (PreparedStatement prepared = prepare(connection, statement, budget, true)) {
			bind(prepared, statement, parameters);
			int count = prepared.executeUpdate();
			try (ResultSet keys = prepared.getGeneratedKeys()) {
				Long token = null;
				if (keys.next()) {
					long key = keys.getLong(1);
					token = (key > 0) ? key : null;
				}
				return new Result(count, token, null);
			}
		}
	}

	private static void bind(PreparedStatement prepared, Statement statement, Map<String, Object> parameters)
			throws SQLException {
		List<String> names = statement.parameters();
		for (int i = 0; i < names.size(); i++) {
			Object value = parameters.get(names.get(i));
			if (value == null) {
				throw new IllegalStateException("No value for :" + names.get(i) + " in " + statement.sql());
			}
			if (value instanceof String text) {
				prepared.setString(i + 1, text);
			}
			else if (value instanceof Integer number) {
				prepared.setInt(i + 1, number);
			}
			else {
				prepared.setLong(i + 1, (Long) value);
			}
		}
	}

	/**
	 * The outcome of an operation: the last update count, and the last row of the last result set as
	 * (token, wait in ms).
	 */
	private record Result(int updateCount, @Nullable Long token, @Nullable Long waitMillis) {

		static final Result NONE = new Result(0, null, null);

		static Result of(ResultSet rows, int updateCount) throws SQLException {
			if (!rows.next()) {
				return new Result(updateCount, null, null);
			}
			int columns = rows.getMetaData().getColumnCount();
			Long token = longOrNull(rows, 1);
			Long wait = (columns > 1) ? longOrNull(rows, 2) : null;
			return new Result(updateCount, token, wait);
		}

		private static @Nullable Long longOrNull(ResultSet rows, int column) throws SQLException {
			Object value = rows.getObject(column);
			return (value instanceof Number number) ? number.longValue() : null;
		}

	}

	// ---------------------------------------------------------------- errors

	/**
	 * Whether an error means "another attempt won": the transaction was rolled back and nothing is held.
	 */
	static boolean isContention(SQLException ex) {
		for (Throwable cause = ex; cause != null; cause = next(cause)) {
			if (cause instanceof SQLTransactionRollbackException) {
				return true;
			}
			if (cause instanceof SQLException sql) {
				String state = (sql.getSQLState() != null) ? sql.getSQLState() : "";
				int code = sql.getErrorCode();
				if (state.equals("40001") || state.equals("40P01") || state.equals("23505") || state.equals("55P03")
						|| state.equals("HYT00") || state.equals("90131") || state.equals("70100") || state.equals("57014")
						|| (state.equals("23000") && code == 1062) || code == 1213 || code == 1205) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Whether an error means the connection died (a terminated session, a dropped socket) rather than a statement
	 * failed.
	 */
	static boolean isBrokenConnection(SQLException ex) {
		for (Throwable cause = ex; cause != null; cause = next(cause)) {
			if (cause instanceof SQLRecoverableException || cause instanceof SQLNonTransientConnectionException) {
				return true;
			}
			if (cause instanceof SQLException sql && sql.getSQLState() != null) {
				String state = sql.getSQLState();
				if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
						|| state.equals("57P03")) {
					return true;
				}
			}
		}
		return false;
	}

	private static @Nullable Throwable next(Throwable cause) {
		if (cause instanceof SQLException sql && sql.getNextException() != null
				&& sql.getNextException() != cause) {
			return sql.getNextException();
		}
		return (cause.getCause() != cause) ? cause.getCause() : null;
	}

	// ---------------------------------------------------------------- keys

	private Target target(LockAttempt attempt) {
		String owner = attempt.owner();
		if (owner.length() > MAX_OWNER || !owner.chars().allMatch((c) -> c < 128)) {
			throw new IllegalArgumentException("Owner token must be ASCII and at most " + MAX_OWNER
					+ " characters: " + owner);
		}
		if (attempt.type() == LockType.SEMAPHORE && attempt.permits() < 1) {
			throw new LockConfigurationException("A semaphore needs at least one permit: " + attempt);
		}
		return new Target(storedKey(attempt.key()), kind(attempt.type()), channelOf());
	}

	private String channelOf() {
		return (this.notifier != null) ? this.notifier.channel() : "";
	}

	static String kind(LockType type) {
		return switch (type) {
			case MUTEX -> "M";
			case FAIR -> "F";
			case READ, WRITE -> "W";
			case SEMAPHORE -> "S";
		};
	}

	private static String acquireOperation(LockType type) {
		return switch (type) {
			case MUTEX -> "acquire-mutex";
			case FAIR -> "acquire-fair";
			case READ -> "acquire-read";
			case WRITE -> "acquire-write";
			case SEMAPHORE -> "acquire-semaphore";
		};
	}

	/**
	 * The key as stored: as it is up to {@value #MAX_PLAIN_KEY} characters, else its first characters, {@code #}
	 * and its SHA-256 in hex (255 characters). The two forms differ in length, so distinct keys stay distinct.
	 * @param key the full key
	 * @return the stored key
	 */
	static String storedKey(String key) {
		if (key.length() <= MAX_PLAIN_KEY) {
			return key;
		}
		int cut = MAX_PLAIN_KEY;
		if (Character.isHighSurrogate(key.charAt(cut - 1))) {
			cut--;
		}
		return key.substring(0, cut) + "#" + sha256(key);
	}

	/**
	 * The notification channel of a table: its name, or a digest of it when longer than PostgreSQL's 63-byte
	 * identifiers (a schema-qualified name may be).
	 * @param tableName the validated table name
	 * @return the channel
	 */
	static String channel(String tableName) {
		return (tableName.length() <= 63) ? tableName : "distlock_" + sha256(tableName).substring(0, 40);
	}

	private static String sha256(String text) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing", ex);
		}
	}

	private static long micros(Duration duration) {
		long micros;
		try {
			micros = duration.toNanos() / 1000;
		}
		catch (ArithmeticException ex) {
			micros = MAX_LEASE_MICROS;
		}
		return Math.max(1, Math.min(micros, MAX_LEASE_MICROS));
	}

	private static Duration positive(Duration duration, String name) {
		Objects.requireNonNull(duration, name);
		if (duration.isNegative() || duration.isZero()) {
			throw new LockConfigurationException(name + " must be positive, was " + duration);
		}
		return duration;
	}

	private void checkTable() {
		try (Connection connection = this.dataSource.getConnection()) {
			for (Statement check : this.statements.get("check").statements()) {
				try (PreparedStatement statement = connection.prepareStatement(check.sql());
						ResultSet ignored = statement.executeQuery()) {
					// the table has the expected columns, and its sequence exists
				}
			}
		}
		catch (SQLException ex) {
			throw new LockConfigurationException("distlock's lock table " + this.tableName + " or its sequence "
					+ JdbcLockSchema.sequenceName(this.tableName) + " is missing or has other columns ("
					+ ex.getMessage() + "). Create or upgrade them with " + JdbcLockSchema.schemaPath(this.dialect)
					+ " from the distlock jar (docs/jdbc.md), or let Spring Boot do it with "
					+ "distlock.jdbc.initialize-schema=always", ex);
		}
	}

	// ---------------------------------------------------------------- connections

	/**
	 * The data source locking uses: a {@code TransactionAwareDataSourceProxy} is unwrapped, since its connections
	 * join the caller's transaction.
	 */
	static DataSource lockingDataSource(DataSource dataSource) {
		return SPRING_JDBC_PRESENT ? SpringJdbc.unwrap(dataSource) : dataSource;
	}

	private PostgresNotifier.ConnectionSource listenerConnections(Builder builder) {
		DataSource listenerDataSource = builder.listenerDataSource;
		if (listenerDataSource != null) {
			return listenerDataSource::getConnection;
		}
		if (HIKARI_PRESENT) {
			PostgresNotifier.ConnectionSource unpooled = Hikari.unpooled(this.dataSource);
			if (unpooled != null) {
				return unpooled;
			}
		}
		// not a pool we can look into: hold one of its connections for as long as the provider lives
		return this.dataSource::getConnection;
	}

	/**
	 * This provider's attempts under one acquisition's deadline, and what they left in the database: what the core's
	 * wait loop drives while {@link #acquire(LockAttempt, LockWaiter)} runs.
	 */
	private final class BoundedAcquisition implements TryOnceLockProvider<JdbcHeldLock> {

		private final LockWaitBudget budget;

		/** Whether any attempt got a connection, so may have left a FAIR ticket. */
		boolean reachedDatabase;

		/** Whether an attempt's outcome is unknown and its cleanup failed while the database answered. */
		boolean unresolved;

		BoundedAcquisition(LockWaitBudget budget) {
			this.budget = budget;
		}

		/**
		 * Whether nothing can be held or queued under the owner once the wait loop ended without a lock: busy
		 * attempts and failed ones roll back, except for a FAIR waiter's ticket and an outcome left unknown.
		 */
		boolean holdsNothing(LockType type) {
			return !this.unresolved && !(type == LockType.FAIR && this.reachedDatabase);
		}

		@Override
		public String name() {
			return JdbcLockProvider.this.name();
		}

		@Override
		public Set<LockType> supportedTypes() {
			return TYPES;
		}

		@Override
		public Acquisition<JdbcHeldLock> tryAcquire(LockAttempt attempt) throws Exception {
			return JdbcLockProvider.this.tryAcquire(attempt, this);
		}

		@Override
		public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
			return JdbcLockProvider.this.subscribe(attempt, listener);
		}

		@Override
		public boolean renew(JdbcHeldLock lock, Duration lease) throws Exception {
			return JdbcLockProvider.this.renew(lock, lease);
		}

		@Override
		public void release(JdbcHeldLock lock) throws Exception {
			JdbcLockProvider.this.release(lock);
		}

	}

	/** Where a lock's rows are, and how its release notifications are addressed. */
	record Target(String storedKey, String kind, String channel) {

		Map<String, Object> parameters(String owner) {
			Map<String, Object> parameters = new HashMap<>();
			parameters.put("key", this.storedKey);
			parameters.put("kind", this.kind);
			parameters.put("owner", owner);
			parameters.put("channel", this.channel);
			parameters.put("payload", payload());
			return parameters;
		}

		String payload() {
			return this.kind + this.storedKey;
		}

	}

	record JdbcHeldLock(String key, Target target, long slot, String owner, long fencingToken)
			implements HeldLock {

		@Override
		public String toString() {
			return "JdbcHeldLock[" + this.key + ", kind " + this.target.kind() + ", slot " + this.slot + ", token "
					+ this.fencingToken + "]";
		}

	}

	/** Kept apart so that spring-jdbc is only loaded when present. */
	private static final class SpringJdbc {

		static DataSource unwrap(DataSource dataSource) {
			DataSource current = dataSource;
			for (int depth = 0; depth < 10; depth++) {
				if (current instanceof org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy proxy) {
					DataSource target = proxy.getTargetDataSource();
					return (target != null) ? unwrap(target) : dataSource;
				}
				if (current instanceof org.springframework.jdbc.datasource.DelegatingDataSource delegating
						&& delegating.getTargetDataSource() != null) {
					current = delegating.getTargetDataSource();
				}
				else {
					return dataSource;
				}
			}
			return dataSource;
		}

	}

	/** Kept apart so that HikariCP is only loaded when present. */
	private static final class Hikari {

		static PostgresNotifier.@Nullable ConnectionSource unpooled(DataSource dataSource) {
			com.zaxxer.hikari.HikariDataSource hikari;
			try {
				if (!dataSource.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)) {
					return null;
				}
				hikari = dataSource.unwrap(com.zaxxer.hikari.HikariDataSource.class);
			}
			catch (SQLException ex) {
				return null;
			}
			DataSource configured = hikari.getDataSource();
			String username = hikari.getUsername();
			String password = hikari.getPassword();
			if (configured != null) {
				return (username != null) ? () -> configured.getConnection(username, password)
						: configured::getConnection;
			}
			String url = hikari.getJdbcUrl();
			if (url == null) {
				return null;
			}
			Properties properties = new Properties();
			properties.putAll(hikari.getDataSourceProperties());
			if (username != null) {
				properties.setProperty("user", username);
			}
			if (password != null) {
				properties.setProperty("password", password);
			}
			return () -> DriverManager.getConnection(url, properties);
		}

	}

	/**
	 * Builds a {@link JdbcLockProvider}. Building detects the database (one connection) unless a platform is
	 * given, and checks that the table exists.
	 */
	public static final class Builder {

		private final DataSource dataSource;

		private String tableName = JdbcLockSchema.DEFAULT_TABLE_NAME;

		private @Nullable String platform;

		private Duration fairWaiterTimeout = DEFAULT_FAIR_WAITER_TIMEOUT;

		private Clock clock = Clock.systemUTC();

		private boolean notifications = true;

		private @Nullable DataSource listenerDataSource;

		private boolean checkTable = true;

		private Duration cleanupInterval = DEFAULT_CLEANUP_INTERVAL;

		private int cleanupBatchSize = DEFAULT_CLEANUP_BATCH_SIZE;

		private Duration minLockWait = DEFAULT_MIN_LOCK_WAIT;

		private Builder(DataSource dataSource) {
			this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
		}

		/**
		 * The lock table (default {@value JdbcLockSchema#DEFAULT_TABLE_NAME}).
		 * @param tableName the table name, optionally {@code schema.table}
		 * @return this builder
		 */
		public Builder tableName(String tableName) {
			this.tableName = tableName;
			return this;
		}

		/**
		 * The database type, instead of detecting it: {@code postgresql}, {@code mariadb}, {@code mysql} or
		 * {@code h2}.
		 * @param platform the platform or {@code null} to detect
		 * @return this builder
		 */
		public Builder platform(@Nullable String platform) {
			this.platform = platform;
			return this;
		}

		/**
		 * How long a FAIR waiter keeps its place without trying again; longer than the longest poll interval.
		 * @param fairWaiterTimeout the timeout
		 * @return this builder
		 */
		public Builder fairWaiterTimeout(Duration fairWaiterTimeout) {
			this.fairWaiterTimeout = fairWaiterTimeout;
			return this;
		}

		/**
		 * The local clock, used only to report {@link JdbcLockProvider#databaseClockOffset()}: locking reads the
		 * database's clock.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			this.clock = Objects.requireNonNull(clock, "clock");
			return this;
		}

		/**
		 * Whether waiters on PostgreSQL are woken by LISTEN/NOTIFY (default) or poll.
		 * @param notifications {@code false} to poll
		 * @return this builder
		 */
		public Builder notifications(boolean notifications) {
			this.notifications = notifications;
			return this;
		}

		/**
		 * Where the PostgreSQL listening connection comes from. By default it is opened with the settings of a
		 * HikariCP pool, outside the pool, or else borrowed from the data source for the provider's life.
		 * @param listenerDataSource an unpooled data source for the listening connection
		 * @return this builder
		 */
		public Builder listenerDataSource(DataSource listenerDataSource) {
			this.listenerDataSource = listenerDataSource;
			return this;
		}

		/**
		 * Whether building checks that the table exists (default {@code true}).
		 * @param checkTable {@code false} to skip the check
		 * @return this builder
		 */
		public Builder checkTable(boolean checkTable) {
			this.checkTable = checkTable;
			return this;
		}

		/**
		 * How often released and expired rows are deleted (default 30 seconds): a released lock's row stays at most
		 * about this long. {@link Duration#ZERO} turns the background sweep off (for a table swept by a job of your
		 * own, or while instances of an earlier snapshot, which cannot handle deleted rows, still use the table).
		 * @param cleanupInterval the interval
		 * @return this builder
		 */
		public Builder cleanupInterval(Duration cleanupInterval) {
			this.cleanupInterval = Objects.requireNonNull(cleanupInterval, "cleanupInterval");
			return this;
		}

		/**
		 * How many rows one sweep transaction deletes at most (default 500); a run deletes batches until one comes
		 * back short.
		 * @param cleanupBatchSize the batch size
		 * @return this builder
		 */
		public Builder cleanupBatchSize(int cleanupBatchSize) {
			this.cleanupBatchSize = cleanupBatchSize;
			return this;
		}

		/**
		 * The shortest time a statement of an acquire attempt may wait for a row lock another transaction holds
		 * (default 200 ms). Statements may wait until the acquisition's deadline, but at least this long, so a
		 * try-once still waits out another attempt's short transaction. Set on PostgreSQL as {@code lock_timeout},
		 * on MariaDB as {@code max_statement_time}, on H2 as {@code LOCK_TIMEOUT}, each for the attempt only; MySQL
		 * gets a JDBC query timeout in whole seconds.
		 * @param minLockWait the minimum lock wait
		 * @return this builder
		 */
		public Builder minLockWait(Duration minLockWait) {
			this.minLockWait = minLockWait;
			return this;
		}

		/**
		 * Builds the provider.
		 * @return the provider
		 * @throws LockConfigurationException if the table name, platform or database is unsupported, or the table
		 * is missing
		 */
		public JdbcLockProvider build() {
			return new JdbcLockProvider(this);
		}

	}

}
