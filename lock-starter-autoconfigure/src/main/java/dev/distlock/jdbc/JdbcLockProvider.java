package dev.distlock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import javax.sql.DataSource;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.core.spi.TryOnceLockProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * The JDBC backend, named {@code jdbc}: every {@link LockType} as rows of one table (see
 * {@link JdbcLockSchema}) on PostgreSQL, MariaDB, MySQL 8 or H2. Leases run on the
 * database's clock and every comparison happens in SQL, so clients whose clocks disagree
 * still exclude each other. Fencing tokens come from one sequence per table and strictly
 * increase per lock, also across the deletion of its rows; only the owner token extends
 * or releases a lease. Every operation borrows its own connection from the
 * {@link DataSource}, outside the caller's transaction, so the pool needs one connection
 * beyond what a thread holding a transaction uses. Every call ends by its deadline (an
 * acquisition's wait plus the {@linkplain JdbcLockProviderBuilder#callTimeout(Duration)
 * call timeout}, any other call the call timeout) whatever the pool and the driver are
 * set to, and a grant whose outcome is unknown is released in the background
 * ({@link OwnerCleanup}). Errors are Spring's {@link DataAccessException}s. A background
 * sweep deletes released and expired rows ({@link #sweptRows()}). The provider starts no
 * thread of its own, except for PostgreSQL's listening connection once a waiter has
 * subscribed ({@link PostgresNotifier}). See docs/jdbc.md.
 *
 * @since 0.1.0
 */
public final class JdbcLockProvider implements TryOnceLockProvider<JdbcHeldLock> {

	private static final Log logger = LogFactory.getLog(JdbcLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	/**
	 * A renewal batch waits in the background lane for at most its lease over this before
	 * a second io thread takes it: a quarter of the margin that the watchdog's default
	 * interval (a third of the lease) leaves before the lease ends.
	 */
	static final int RENEWAL_PATIENCE_DIVISOR = 6;

	private final String tableName;

	private final JdbcDialect dialect;

	private final LockStatements statements;

	private final LockStatementRunner runner;

	private final long fairWaiterTimeoutMicros;

	private final Duration minLockWait;

	private final Clock clock;

	private final ReleaseNotifications notifications;

	private final RenewalBatch renewals;

	private final LockTableSweeper sweeper;

	/**
	 * Renewal batches and sweep runs, one at a time on an io thread, two while a batch
	 * waits too long.
	 */
	private final BackgroundLane lane = new BackgroundLane(JdbcThreads.io());

	private final BoundedConnections connections;

	private final OwnerCleanup cleanup;

	private final LongAdder contended = new LongAdder();

	private final LongAdder failedReleases = new LongAdder();

	/**
	 * Attempts known to hold nothing, whose {@link #abandon} is a no-op; weak, in case
	 * the core never abandons.
	 */
	private final Set<LockAttempt> settled = Collections
		.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

	JdbcLockProvider(JdbcLockProviderBuilder builder) {
		DataSource dataSource = LockingDataSource.unwrap(builder.dataSource);
		this.tableName = JdbcLockSchema.validateTableName(builder.tableName);
		this.dialect = JdbcDialect.of(dataSource, builder.platform);
		this.statements = LockStatements.load(this.dialect, this.tableName);
		SqlFailures failures = new SqlFailures(this.dialect);
		this.connections = new BoundedConnections(dataSource, builder.callTimeout, this.dialect);
		this.runner = new LockStatementRunner(this.connections, this.dialect, failures, this.tableName);
		this.cleanup = new OwnerCleanup((target, owner) -> abandonOrThrow(target, owner, this.connections.deadline()),
				this.tableName);
		this.fairWaiterTimeoutMicros = LockTarget.micros(builder.fairWaiterTimeout);
		this.minLockWait = builder.minLockWait;
		this.clock = builder.clock;
		this.notifications = new ReleaseNotifications(this, this.dialect, this.tableName,
				(this.dialect.notifies() && builder.notifications)
						? LockingDataSource.listenerConnections(dataSource, builder.listenerDataSource) : null,
				builder.callTimeout);
		this.renewals = new RenewalBatch(this.connections, this.statements, failures, this.tableName);
		this.sweeper = new LockTableSweeper(this.connections, this.statements, failures, this.tableName,
				builder.cleanupInterval, builder.cleanupBatchSize, this.lane);
		if (builder.checkTable) {
			JdbcLockSchema.check(this.runner, this.statements, this.dialect, this.tableName);
		}
		this.sweeper.start();
	}

	/**
	 * Starts building a provider on a data source.
	 * @param dataSource where the lock table lives
	 * @return the builder
	 */
	public static JdbcLockProviderBuilder builder(DataSource dataSource) {
		return new JdbcLockProviderBuilder(dataSource);
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
	 * @return the table name, possibly with its schema
	 */
	public String tableName() {
		return this.tableName;
	}

	/**
	 * The platform in use: {@code postgresql}, {@code mariadb}, {@code mysql} or
	 * {@code h2}.
	 * @return the platform name
	 */
	public String platform() {
		return this.dialect.platform();
	}

	/**
	 * How far the database's clock is ahead of this provider's clock, for operators
	 * (locking itself never reads the local clock: leases are the database's time).
	 * @return database time minus local time
	 * @throws DataAccessException if the database could not be asked
	 */
	public Duration databaseClockOffset() {
		Instant database = this.runner.query(this.statements.get("now").statements().get(0), (result) -> {
			result.next();
			return this.dialect.databaseTime(result);
		});
		return Duration.between(this.clock.instant(), database);
	}

	/**
	 * Runs the core's wait loop with every statement of every attempt bounded by the time
	 * left until the waiter's deadline (at least the minimum lock wait), so that a client
	 * stalled in a transaction holding the lock's rows delays this acquisition by no more
	 * than its wait.
	 */
	@Override
	public @Nullable JdbcHeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return new BoundedAcquisition(this, new LockWaitBudget(waiter.deadlineNanos(), this.minLockWait)).await(waiter,
				attempt);
	}

	/**
	 * One attempt; its statements may wait for row locks for the minimum lock wait only.
	 */
	@Override
	public AttemptOutcome<JdbcHeldLock> tryAcquire(LockAttempt attempt) {
		return new BoundedAcquisition(this, minimumBudget()).tryAcquire(attempt);
	}

	LockWaitBudget minimumBudget() {
		return new LockWaitBudget(System.nanoTime(), this.minLockWait);
	}

	OperationResult run(String operation, Map<String, Object> parameters, LockWaitBudget budget, long deadlineNanos) {
		parameters.put("wait", this.fairWaiterTimeoutMicros);
		parameters.put("lockTimeout", String.valueOf(budget.remainingMillis()));
		return this.runner.run(this.statements.get(operation), parameters, budget, deadlineNanos);
	}

	/**
	 * Marks an attempt as holding nothing, so that {@link #abandon} has nothing to do.
	 */
	void settle(LockAttempt attempt) {
		this.settled.add(attempt);
	}

	/**
	 * Attempts that lost a race inside the database (deadlock, unique-key race, lock
	 * timeout): busy.
	 */
	long contendedAttempts() {
		return this.contended.sum();
	}

	void countContention() {
		this.contended.increment();
	}

	/**
	 * Rows of released and expired locks this provider's sweeps have deleted so far, for
	 * a meter (a Micrometer {@code FunctionCounter} over this method, for instance).
	 * @return the number of rows deleted
	 */
	public long sweptRows() {
		return this.sweeper.sweptRows();
	}

	/**
	 * The background sweep's task on the backend's shared timer; for tests.
	 * @return the task, or {@code null} if there is none (closed, or no background sweep)
	 */
	@Nullable Future<?> sweepSchedule() {
		return this.sweeper.schedule();
	}

	/**
	 * Deletes the rows of released and expired locks now, in batches, as the background
	 * sweep does every cleanup interval; for operators and tests.
	 * @return the number of rows deleted
	 * @throws DataAccessException if the database failed
	 */
	public int sweep() {
		return this.sweeper.sweep();
	}

	/**
	 * Starts a run of the background sweep now, in this provider's background lane, as a
	 * tick of the background sweep does; for tests.
	 */
	void sweepInBackground() {
		this.sweeper.tick();
	}

	/**
	 * A waiter registered for the fair waiter timeout; see
	 * {@link #subscribe(LockAttempt, Duration, Runnable)}.
	 */
	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
		return subscribe(attempt, Duration.ofNanos(this.fairWaiterTimeoutMicros * 1000), listener);
	}

	/**
	 * On PostgreSQL, listens for the lock's releases and registers the waiter on the
	 * lock's head row for {@code waitLeft}, so that releases notify; closing the
	 * subscription leaves. Elsewhere waiters poll.
	 */
	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Duration waitLeft, Runnable listener) throws Exception {
		return this.notifications.subscribe(target(attempt), waitLeft, listener, minimumBudget(),
				attempt.deadlineNanos());
	}

	ReleaseNotifications notifications() {
		return this.notifications;
	}

	/**
	 * Renews by the call timeout: a renewal that gets no answer fails then, and the core
	 * retries it.
	 */
	@Override
	public boolean renew(JdbcHeldLock held, Duration lease) {
		return renew(held, lease, this.connections.deadline());
	}

	private boolean renew(JdbcHeldLock held, Duration lease, long deadlineNanos) {
		Map<String, Object> parameters = held.target().parameters(held.owner());
		parameters.put("slot", held.slot());
		parameters.put("lease", LockTarget.micros(lease));
		return this.runner.runIdempotent(this.statements.get("renew"), parameters, null, deadlineNanos)
			.updateCount() > 0;
	}

	/**
	 * Renews the leases in one JDBC batch on one connection, which the driver sends in
	 * one round trip; a lease whose statement the database refuses fails alone (see
	 * {@link RenewalBatch}).
	 */
	@Override
	public RenewalOutcome[] renewAll(List<JdbcHeldLock> locks, Duration lease) {
		return this.renewals.renew(locks, lease, this::renew);
	}

	/**
	 * Takes the batch into this provider's background lane, where it runs as
	 * {@link #renewAll(List, Duration)} does once the batches and sweep batches before it
	 * are done, borrowing its connection on the lane's own io thread: the watchdog of
	 * every lease this provider holds costs that one thread. Once the batch has waited a
	 * sixth of its lease, a second io thread drains the lane beside the first, so a batch
	 * waiting for the database does not hold up the others, and renewals that fall due
	 * faster than one connection carries them go over two; a pool or database that does
	 * not answer holds those two threads alone (the batches behind them wait, and a lease
	 * whose answer comes after its end is lost).
	 */
	@Override
	public boolean renewAllInBackground(List<JdbcHeldLock> locks, Duration lease, Consumer<RenewalOutcome[]> answer) {
		this.lane.execute(() -> {
			RenewalOutcome[] outcomes;
			try {
				outcomes = this.renewals.renewInBackground(locks, lease, this::renew);
			}
			catch (RuntimeException ex) {
				outcomes = new RenewalOutcome[locks.size()];
				Arrays.fill(outcomes, RenewalOutcome.failed(ex));
			}
			answer.accept(outcomes);
		}, lease.toNanos() / RENEWAL_PATIENCE_DIVISOR);
		return true;
	}

	/**
	 * Releases by the call timeout. A release that fails or gets no answer is counted
	 * ({@link #failedReleases()}) and thrown, and its lock is released with its owner
	 * token in the background once the database answers; until then it frees itself when
	 * its lease ends.
	 */
	@Override
	public void release(JdbcHeldLock held) {
		Map<String, Object> parameters = held.target().parameters(held.owner());
		parameters.put("slot", held.slot());
		try {
			this.runner.runIdempotent(this.statements.get((held.slot() == 0) ? "release" : "release-member"),
					parameters, null, this.connections.deadline());
		}
		catch (DataAccessException ex) {
			this.failedReleases.increment();
			this.cleanup.add(held.target(), held.owner());
			throw ex;
		}
	}

	/**
	 * Releases that failed or got no answer so far, for a meter; their locks are released
	 * in the background once the database answers, or free themselves when their leases
	 * end.
	 * @return the number of failed releases
	 */
	public long failedReleases() {
		return this.failedReleases.sum();
	}

	/**
	 * Cleans up after an attempt the core gave up on, unless this provider knows it holds
	 * nothing: a busy outcome holds nothing except a FAIR ticket, and an attempt that
	 * never reached the database (no connection to be had) left nothing there; trying to
	 * clean it up would wait for the pool a second time. A cleanup that fails is retried
	 * in the background until the database answers ({@link OwnerCleanup}): the attempt's
	 * statement may reach the database after its caller gave up, when the network heals,
	 * and grant the lock to nobody.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
		if (this.settled.remove(attempt)) {
			return;
		}
		LockTarget target = target(attempt);
		// by the acquisition's call deadline when the core cleans up on the caller's
		// thread (a FAIR ticket after the wait ran out); past it (in the background,
		// after a call without an answer) by the call timeout
		long deadline = (attempt.deadlineNanos() - System.nanoTime() > 0) ? attempt.deadlineNanos()
				: this.connections.deadline();
		try {
			abandonOrThrow(target, attempt.owner(), deadline);
		}
		catch (DataAccessException ex) {
			logger.debug("Could not clean up after " + attempt + " yet; retrying in the background", ex);
			this.cleanup.add(target, attempt.owner());
		}
	}

	void abandonOrThrow(LockTarget target, String owner, long deadlineNanos) {
		// part of a failed acquisition: a stalled transaction on the lock's rows must not
		// hold it up either
		this.runner.runIdempotent(this.statements.get("abandon"), target.parameters(owner), minimumBudget(),
				deadlineNanos);
	}

	/**
	 * Cleanups of unknown outcomes (late grants, releases without an answer) still
	 * waiting for the database.
	 * @return the number waiting
	 */
	int pendingCleanups() {
		return this.cleanup.pending();
	}

	/**
	 * Checks that the database answers with one query that writes nothing (the database
	 * time), by the call timeout.
	 */
	@Override
	public void checkHealth(LockAttempt probe) {
		this.runner.query(this.statements.get("now").statements().get(0), (result) -> null);
	}

	@Override
	public void close() {
		this.cleanup.close();
		this.sweeper.close();
		this.notifications.close();
		this.connections.close();
	}

	LockTarget target(LockAttempt attempt) {
		return LockTarget.of(attempt, this.notifications.channel());
	}

	@Override
	public String toString() {
		return "JdbcLockProvider[" + this.dialect.platform() + ", table " + this.tableName + "]";
	}

}
