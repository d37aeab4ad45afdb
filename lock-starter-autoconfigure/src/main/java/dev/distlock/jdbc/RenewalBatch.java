package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.jdbc.LockStatements.Statement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Renews many leases at once. Where the dialect has a {@code renew-many} statement
 * (PostgreSQL), the whole batch is that one statement, its locks bound as arrays, and the
 * rows it returns are the leases renewed: the database plans and executes one statement
 * instead of one per lease, which at 100,000 held leases is what keeps the renewals of a
 * period within the period. Its plan is held to joins of at most a batch's rows, so a
 * table whose statistics are stale (emptied, vacuumed, refilled) renews as fast.
 * Otherwise it is the dialect's {@code renew} statement (owner-checked, one row each)
 * bound once per lock into one JDBC batch on one connection, in one transaction. pgjdbc
 * and MariaDB Connector/J pipeline a batch (all statements written, then the replies
 * read), so a batch costs one round trip (pgjdbc splits batches of more than ~250
 * statements into a few); each statement's update count says whether its lock was
 * renewed. A broken connection is replaced, as for single renewals, since renewing is
 * idempotent; the whole batch, retries included, ends by one call deadline. Each lease
 * stands or falls on its own answer: when the database refuses one statement (which rolls
 * the batch's transaction back), the leases are renewed one by one, so only the refused
 * one fails.
 */
final class RenewalBatch {

	private static final Log logger = LogFactory.getLog(RenewalBatch.class);

	/** Connections a batch tries when they turn out to be dead. */
	private static final int CONNECTION_ATTEMPTS = 3;

	/**
	 * The column of {@code renew-many}'s result: a renewed lease's place in the batch.
	 */
	private static final String PLACE = "place";

	private final BoundedConnections connections;

	/**
	 * The statement a JDBC batch repeats once per lease, where the dialect has no
	 * {@code renew-many}.
	 */
	private final @Nullable Statement renew;

	private final @Nullable Statement renewMany;

	private final @Nullable Statement renewManySequenced;

	private final SqlFailures failures;

	private final String tableName;

	/**
	 * Whether the driver reports the update counts of a batch; if not, renewals go one by
	 * one.
	 */
	private volatile boolean batched = true;

	RenewalBatch(BoundedConnections connections, LockStatements statements, SqlFailures failures, String tableName) {
		this.connections = connections;
		LockStatements.Operation many = statements.find("renew-many");
		this.renew = (many == null) ? statements.get("renew").single() : null;
		// the planner settings and the statement, in one round trip
		this.renewMany = (many != null) ? many.joined() : null;
		LockStatements.Operation sequenced = statements.find("renew-many-sequenced");
		this.renewManySequenced = (sequenced != null) ? sequenced.joined() : null;
		this.failures = failures;
		this.tableName = tableName;
	}

	/**
	 * Renews each lock's lease, if its owner still holds it: in one batch, else one by
	 * one (a driver that does not report a batch's update counts, or a batch the database
	 * refused).
	 * @param locks the locks
	 * @param lease the new lease of each, from now (the database's now)
	 * @param single renews one lock by a deadline
	 * @return for each lock, in order, its outcome: a connection that broke or did not
	 * answer by the call deadline fails every lease of the batch, whose outcomes are all
	 * unknown
	 */
	RenewalOutcome[] renew(List<JdbcHeldLock> locks, Duration lease, SingleRenewal single) {
		return renew(locks, lease, single, false);
	}

	/**
	 * Renews as {@link #renew(List, Duration, SingleRenewal)} does, for work nobody waits
	 * for that already runs on a thread of the backend's own (its background lane): the
	 * batch's connection is borrowed on this thread, without the hand-over, and its reads
	 * are bounded by the call timeout from when it came.
	 * @param locks the locks
	 * @param lease the new lease of each, from now (the database's now)
	 * @param single renews one lock by a deadline
	 * @return for each lock, in order, its outcome
	 */
	RenewalOutcome[] renewInBackground(List<JdbcHeldLock> locks, Duration lease, SingleRenewal single) {
		return renew(locks, lease, single, true);
	}

	private RenewalOutcome[] renew(List<JdbcHeldLock> locks, Duration lease, SingleRenewal single, boolean background) {
		long deadline = this.connections.deadline();
		RenewalOutcome[] outcomes = new RenewalOutcome[locks.size()];
		if (this.batched && !locks.isEmpty()) {
			try {
				boolean[] renewed = renew(locks, lease, deadline, background);
				for (int i = 0; i < outcomes.length; i++) {
					outcomes[i] = RenewalOutcome.of(renewed[i]);
				}
				return outcomes;
			}
			catch (InvalidDataAccessApiUsageException ex) {
				logger.info(ex.getMessage());
				this.batched = false;
			}
			catch (DataAccessException ex) {
				// a batch without an answer in the call's time fails as a whole: no time
				// is left to renew its leases one by one
				if (ex instanceof CannotGetJdbcConnectionException || ex instanceof QueryTimeoutException
						|| SqlFailures.isBrokenConnection(ex)) {
					java.util.Arrays.fill(outcomes, RenewalOutcome.failed(ex));
					return outcomes;
				}
				logger.debug("A batch renewal was refused; renewing its leases one by one", ex);
			}
		}
		for (int i = 0; i < outcomes.length; i++) {
			try {
				outcomes[i] = RenewalOutcome.of(single.renew(locks.get(i), lease, deadline));
			}
			catch (RuntimeException ex) {
				outcomes[i] = RenewalOutcome.failed(ex);
			}
		}
		return outcomes;
	}

	/** Renews one lease by a deadline. */
	@FunctionalInterface
	interface SingleRenewal {

		boolean renew(JdbcHeldLock held, Duration lease, long deadlineNanos);

	}

	private boolean[] renew(List<JdbcHeldLock> locks, Duration lease, long deadlineNanos, boolean background) {
		for (int attempt = 1;; attempt++) {
			try {
				return renewOnce(locks, LockTarget.micros(lease), deadlineNanos, background);
			}
			catch (CannotGetJdbcConnectionException ex) {
				throw ex;
			}
			catch (DataAccessException ex) {
				if (attempt >= CONNECTION_ATTEMPTS || !SqlFailures.isBrokenConnection(ex)
						|| deadlineNanos - System.nanoTime() <= 0) {
					throw ex;
				}
				logger.debug("Retrying a batch renewal on another connection", ex);
			}
		}
	}

	private boolean[] renewOnce(List<JdbcHeldLock> locks, long leaseMicros, long deadlineNanos, boolean background) {
		String task = "distlock renew of " + locks.size() + " leases on " + this.tableName;
		try (BoundedConnections.Bounded bounded = background ? this.connections.openInBackground(task)
				: this.connections.open(deadlineNanos, task)) {
			Connection connection = bounded.connection();
			if (this.renewMany != null) {
				// the statement's bound: the call's time left (the call timeout from when
				// the connection came, in the background)
				long until = background ? this.connections.deadline() : deadlineNanos;
				return renewInOneStatement(connection, this.renewMany, this.renewManySequenced, locks, leaseMicros,
						new LockWaitBudget(until, Duration.ofMillis(1)).remainingMillis());
			}
			Statement renew = java.util.Objects.requireNonNull(this.renew, "renew");
			int[] counts = LockStatementRunner.transaction(connection, () -> {
				try (PreparedStatement prepared = connection.prepareStatement(renew.sql())) {
					for (JdbcHeldLock held : locks) {
						Map<String, Object> parameters = held.target().parameters(held.owner());
						parameters.put("slot", held.slot());
						parameters.put("lease", leaseMicros);
						renew.bind(prepared, parameters);
						prepared.addBatch();
					}
					return prepared.executeBatch();
				}
			});
			boolean[] renewed = new boolean[locks.size()];
			for (int i = 0; i < renewed.length; i++) {
				if (counts[i] == java.sql.Statement.SUCCESS_NO_INFO) {
					// a driver that sent the batch in bulk cannot tell rows apart: never
					// guess a renewal
					throw new InvalidDataAccessApiUsageException("The JDBC driver reports no update counts for "
							+ "batches (SUCCESS_NO_INFO); distlock renews one lease per statement instead");
				}
				renewed[i] = counts[i] > 0;
			}
			return renewed;
		}
		catch (SQLException ex) {
			throw this.failures.translate(task, ex);
		}
	}

	/**
	 * Renews the batch with the one statement that takes its locks as arrays; a lease is
	 * renewed if the statement returned its place in the arrays. When every owner token
	 * of the batch is one prefix and a sequence number, as the tokens of one process are,
	 * the sequenced statement takes the prefix once and the numbers as an array. The
	 * statement comes after the planner settings that keep its plan independent of the
	 * table's statistics (see {@code operations-postgresql.sql}), both in one round trip
	 * and one implicit transaction. That is atomic on its own: on a connection in
	 * autocommit mode it runs without a transaction around it, which would cost a round
	 * trip for the commit.
	 */
	private static boolean[] renewInOneStatement(Connection connection, Statement renewMany,
			@Nullable Statement renewManySequenced, List<JdbcHeldLock> locks, long leaseMicros, long timeoutMillis)
			throws SQLException {
		int size = locks.size();
		String[] keys = new String[size];
		String[] kinds = new String[size];
		Long[] slots = new Long[size];
		for (int i = 0; i < size; i++) {
			JdbcHeldLock held = locks.get(i);
			keys[i] = held.target().storedKey();
			kinds[i] = held.target().kind();
			slots[i] = held.slot();
		}
		Map<String, Object> parameters = new HashMap<>();
		parameters.put("lease", leaseMicros);
		parameters.put("statementTimeout", Long.toString(timeoutMillis));
		parameters.put("keys", connection.createArrayOf("varchar", keys));
		parameters.put("kinds", connection.createArrayOf("varchar", kinds));
		parameters.put("slots", connection.createArrayOf("bigint", slots));
		OwnerSequences.Split split = (renewManySequenced != null) ? OwnerSequences.split(locks) : null;
		Statement statement;
		if (split != null) {
			statement = renewManySequenced;
			parameters.put("ownerPrefix", split.prefix());
			parameters.put("sequences", connection.createArrayOf("bigint", split.sequences()));
		}
		else {
			String[] owners = new String[size];
			for (int i = 0; i < size; i++) {
				owners[i] = locks.get(i).owner();
			}
			statement = renewMany;
			parameters.put("owners", connection.createArrayOf("varchar", owners));
		}
		if (connection.getAutoCommit()) {
			return executeRenewMany(connection, statement, parameters, size);
		}
		return LockStatementRunner.transaction(connection,
				() -> executeRenewMany(connection, statement, parameters, size));
	}

	private static boolean[] executeRenewMany(Connection connection, Statement statement,
			Map<String, Object> parameters, int size) throws SQLException {
		boolean[] renewed = new boolean[size];
		try (PreparedStatement prepared = connection.prepareStatement(statement.sql())) {
			statement.bind(prepared, parameters);
			// the planner settings' row first, then the places of the leases renewed
			LockStatementRunner.readRows(prepared, PLACE, (row) -> renewed[(int) row.getLong(1) - 1] = true);
		}
		return renewed;
	}

}
