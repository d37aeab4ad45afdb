package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;

import javax.sql.DataSource;

import dev.distlock.jdbc.LockStatements.Statement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Renews many leases at once: the dialect's {@code renew} statement (owner-checked, one row each) bound once per lock
 * into one JDBC batch on one connection, in one transaction. pgjdbc and MariaDB Connector/J pipeline a batch (all
 * statements written, then the replies read), so a batch costs one round trip (pgjdbc splits batches of more than
 * ~250 statements into a few); each statement's update count says whether its lock was renewed. A broken connection
 * is replaced, as for single renewals, since renewing is idempotent.
 */
final class RenewalBatch {

	private static final Log logger = LogFactory.getLog(RenewalBatch.class);

	/** Connections a batch tries when they turn out to be dead. */
	private static final int CONNECTION_ATTEMPTS = 3;

	private final DataSource dataSource;

	private final Statement renew;

	private final SqlFailures failures;

	private final String tableName;

	/** Whether the driver reports the update counts of a batch; if not, renewals go one by one. */
	private volatile boolean batched = true;

	RenewalBatch(DataSource dataSource, LockStatements statements, SqlFailures failures, String tableName) {
		List<Statement> renew = statements.get("renew").statements();
		if (renew.size() != 1) {
			throw new IllegalStateException("renew must be one statement to be batched, not " + renew.size());
		}
		this.dataSource = dataSource;
		this.renew = renew.get(0);
		this.failures = failures;
		this.tableName = tableName;
	}

	/**
	 * Renews each lock's lease, if its owner still holds it: in one batch, or one by one with a driver that does not
	 * report a batch's update counts.
	 * @param locks the locks
	 * @param lease the new lease of each, from now (the database's now)
	 * @param single renews one lock
	 * @return for each lock, in order, whether it was renewed
	 * @throws DataAccessException if the database failed: every outcome is then unknown
	 */
	boolean[] renew(List<JdbcHeldLock> locks, Duration lease, BiPredicate<JdbcHeldLock, Duration> single) {
		if (this.batched) {
			try {
				return renew(locks, lease);
			}
			catch (InvalidDataAccessApiUsageException ex) {
				logger.info(ex.getMessage());
				this.batched = false;
			}
		}
		boolean[] renewed = new boolean[locks.size()];
		for (int i = 0; i < renewed.length; i++) {
			renewed[i] = single.test(locks.get(i), lease);
		}
		return renewed;
	}

	private boolean[] renew(List<JdbcHeldLock> locks, Duration lease) {
		if (locks.isEmpty()) {
			return new boolean[0];
		}
		for (int attempt = 1;; attempt++) {
			try {
				return renewOnce(locks, LockTarget.micros(lease));
			}
			catch (CannotGetJdbcConnectionException ex) {
				throw ex;
			}
			catch (DataAccessException ex) {
				if (attempt >= CONNECTION_ATTEMPTS || !SqlFailures.isBrokenConnection(ex)) {
					throw ex;
				}
				logger.debug("Retrying a batch renewal on another connection", ex);
			}
		}
	}

	private boolean[] renewOnce(List<JdbcHeldLock> locks, long leaseMicros) {
		Connection connection;
		try {
			connection = this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			throw new CannotGetJdbcConnectionException("No connection for distlock renew on " + this.tableName + ": "
					+ ex.getMessage(), ex);
		}
		try (connection) {
			int[] counts = LockStatementRunner.transaction(connection, () -> {
				try (PreparedStatement prepared = connection.prepareStatement(this.renew.sql())) {
					for (JdbcHeldLock held : locks) {
						Map<String, Object> parameters = held.target().parameters(held.owner());
						parameters.put("slot", held.slot());
						parameters.put("lease", leaseMicros);
						this.renew.bind(prepared, parameters);
						prepared.addBatch();
					}
					return prepared.executeBatch();
				}
			});
			boolean[] renewed = new boolean[locks.size()];
			for (int i = 0; i < renewed.length; i++) {
				if (counts[i] == java.sql.Statement.SUCCESS_NO_INFO) {
					// a driver that sent the batch in bulk cannot tell rows apart: never guess a renewal
					throw new InvalidDataAccessApiUsageException("The JDBC driver reports no update counts for "
							+ "batches (SUCCESS_NO_INFO); distlock renews one lease per statement instead");
				}
				renewed[i] = counts[i] > 0;
			}
			return renewed;
		}
		catch (SQLException ex) {
			throw this.failures.translate("distlock renew of " + locks.size() + " leases on " + this.tableName, ex);
		}
	}

}
