package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import dev.distlock.jdbc.LockStatements.Operation;
import dev.distlock.jdbc.LockStatements.Statement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Runs the JDBC backend's operations, each on a connection of its own borrowed straight
 * from the data source (never joining the caller's transaction): in one round trip where
 * the dialect batches, else in one statement in autocommit or one short transaction.
 * Every value is bound; an attempt's statements are bounded by its
 * {@link LockWaitBudget}, and every call, from borrowing its connection to its last
 * reply, by its deadline ({@link BoundedConnections}). Errors come out translated into
 * Spring's {@link DataAccessException} tree.
 */
final class LockStatementRunner {

	private static final Log logger = LogFactory.getLog(LockStatementRunner.class);

	/** Connections an idempotent operation tries when they turn out to be dead. */
	private static final int CONNECTION_ATTEMPTS = 3;

	private final BoundedConnections connections;

	private final JdbcDialect dialect;

	private final SqlFailures failures;

	private final String tableName;

	LockStatementRunner(BoundedConnections connections, JdbcDialect dialect, SqlFailures failures, String tableName) {
		this.connections = connections;
		this.dialect = dialect;
		this.failures = failures;
		this.tableName = tableName;
	}

	/**
	 * Runs an operation once.
	 * @param operation the operation
	 * @param parameters its values by name
	 * @param budget how long its statements may wait for row locks, or {@code null} for
	 * no bound
	 * @param deadlineNanos when the call must have returned
	 * @return the outcome
	 * @throws CannotGetJdbcConnectionException if the pool gave no connection by the
	 * deadline: nothing was sent
	 * @throws DataAccessException if the database failed, or did not answer by the
	 * deadline (a broken connection)
	 */
	OperationResult run(Operation operation, Map<String, Object> parameters, @Nullable LockWaitBudget budget,
			long deadlineNanos) {
		try (BoundedConnections.Bounded connection = this.connections.openWarm(deadlineNanos, task(operation))) {
			OperationResult result = run(connection, operation, parameters, budget, deadlineNanos);
			// it succeeded and left the connection as it found it: the next call may use
			// it without a hand-over
			connection.reusable();
			return result;
		}
		catch (SQLException ex) {
			throw this.failures.translate(task(operation), ex);
		}
	}

	/**
	 * Runs an idempotent operation, on another connection when its connection turns out
	 * to be dead (a pool may hand out connections whose session was killed), on at most
	 * {@value #CONNECTION_ATTEMPTS}, all within one deadline. A pool that has no
	 * connection to give is not asked again: that would wait for its timeout once more.
	 * @param operation the operation
	 * @param parameters its values by name
	 * @param budget how long its statements may wait for row locks, or {@code null} for
	 * no bound
	 * @param deadlineNanos when the call, retries included, must have returned
	 * @return the outcome
	 * @throws CannotGetJdbcConnectionException if the pool gave no connection
	 * @throws DataAccessException if the database failed or did not answer by the
	 * deadline
	 */
	OperationResult runIdempotent(Operation operation, Map<String, Object> parameters, @Nullable LockWaitBudget budget,
			long deadlineNanos) {
		for (int attempt = 1;; attempt++) {
			try {
				return run(operation, parameters, budget, deadlineNanos);
			}
			catch (CannotGetJdbcConnectionException ex) {
				throw ex;
			}
			catch (DataAccessException ex) {
				if (attempt >= CONNECTION_ATTEMPTS || !SqlFailures.isBrokenConnection(ex)
						|| deadlineNanos - System.nanoTime() <= 0) {
					throw ex;
				}
				logger.debug("Retrying " + operation.name() + " on another connection", ex);
			}
		}
	}

	/**
	 * Runs a query without parameters, for checks and the clock, by the call timeout.
	 * @param statement the query
	 * @param reader reads the result
	 * @param <T> what the result gives
	 * @return what the reader returned
	 * @throws DataAccessException if the database failed or did not answer in time
	 */
	<T> @Nullable T query(Statement statement, ResultReader<T> reader) {
		return query(statement, reader, this.connections.deadline());
	}

	/**
	 * Runs a query without parameters by a deadline.
	 * @param statement the query
	 * @param reader reads the result
	 * @param deadlineNanos when the query must have returned
	 * @param <T> what the result gives
	 * @return what the reader returned
	 * @throws DataAccessException if the database failed or did not answer in time
	 */
	<T> @Nullable T query(Statement statement, ResultReader<T> reader, long deadlineNanos) {
		String task = "distlock query on " + this.tableName;
		try (BoundedConnections.Bounded connection = this.connections.open(deadlineNanos, task);
				PreparedStatement prepared = connection.connection().prepareStatement(statement.sql());
				ResultSet result = prepared.executeQuery()) {
			return reader.read(result);
		}
		catch (SQLException ex) {
			throw this.failures.translate(task, ex);
		}
	}

	/** Reads a query's result. */
	@FunctionalInterface
	interface ResultReader<T> {

		@Nullable T read(ResultSet result) throws SQLException;

	}

	private String task(Operation operation) {
		return "distlock " + operation.name() + " on " + this.tableName;
	}

	private OperationResult run(BoundedConnections.Bounded bounded, Operation operation, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget, long deadlineNanos) throws SQLException {
		Connection connection = bounded.connection();
		Statements statements = new Statements(bounded, parameters, budget, deadlineNanos);
		long previous = (budget != null) ? this.dialect.beginBounded(connection, budget.remainingMillis()) : -1;
		try {
			List<Statement> sequence = operation.statements();
			if (this.dialect.batched() || sequence.size() == 1) {
				Statement statement = this.dialect.batched() ? operation.joined() : sequence.get(0);
				return inAutoCommit(connection, () -> operation.generatedKey() ? statements.runForKey(statement)
						: statements.runOne(statement));
			}
			return transaction(connection, () -> {
				OperationResult result = OperationResult.NONE;
				for (Statement statement : sequence) {
					result = statements.runOne(statement);
				}
				return result;
			});
		}
		finally {
			this.dialect.endBounded(connection, previous);
		}
	}

	private static OperationResult inAutoCommit(Connection connection, SqlWork<OperationResult> work)
			throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		if (!autoCommit) {
			connection.setAutoCommit(true);
		}
		try {
			return work.run();
		}
		finally {
			if (!autoCommit) {
				connection.setAutoCommit(false);
			}
		}
	}

	/** Work on a connection. */
	@FunctionalInterface
	interface SqlWork<T> {

		T run() throws SQLException;

	}

	/** Reads one row of a result. */
	@FunctionalInterface
	interface RowReader {

		void read(ResultSet row) throws SQLException;

	}

	/**
	 * Executes a prepared statement that may be several (settings first, then the query)
	 * and reads the rows of each result whose first column has the given label; the other
	 * results (the settings' rows, update counts) are skipped.
	 * @param prepared the bound statement
	 * @param firstColumn the label of the wanted results' first column
	 * @param reader called once per row of those results
	 * @throws SQLException if the database failed
	 */
	static void readRows(PreparedStatement prepared, String firstColumn, RowReader reader) throws SQLException {
		boolean isResultSet = prepared.execute();
		while (isResultSet || prepared.getUpdateCount() != -1) {
			if (isResultSet) {
				try (ResultSet rows = prepared.getResultSet()) {
					if (firstColumn.equalsIgnoreCase(rows.getMetaData().getColumnLabel(1))) {
						while (rows.next()) {
							reader.read(rows);
						}
					}
				}
			}
			isResultSet = prepared.getMoreResults();
		}
	}

	/**
	 * Runs work in a transaction of its own on a connection: committed if it returns,
	 * rolled back if it throws; the connection's autocommit is as before afterwards.
	 * @param connection the connection
	 * @param work the work
	 * @param <T> what the work returns
	 * @return what the work returned
	 * @throws SQLException if the work or the commit failed
	 */
	static <T> T transaction(Connection connection, SqlWork<T> work) throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		if (autoCommit) {
			connection.setAutoCommit(false);
		}
		try {
			T result = work.run();
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

	/**
	 * The statements of one call on its connection, each bounded by the call's budget and
	 * deadline.
	 */
	private final class Statements {

		private final BoundedConnections.Bounded bounded;

		private final Map<String, Object> parameters;

		private final @Nullable LockWaitBudget budget;

		private final long deadlineNanos;

		Statements(BoundedConnections.Bounded bounded, Map<String, Object> parameters, @Nullable LockWaitBudget budget,
				long deadlineNanos) {
			this.bounded = bounded;
			this.parameters = parameters;
			this.budget = budget;
			this.deadlineNanos = deadlineNanos;
		}

		private PreparedStatement prepare(Statement statement, boolean generatedKey) throws SQLException {
			// each round trip gets what is left of the call, not the whole call again
			this.bounded.bound(this.deadlineNanos);
			long millis = (this.budget != null) ? this.budget.remainingMillis() : 0;
			String sql = LockStatementRunner.this.dialect.bounded(statement.sql(), millis);
			Connection connection = this.bounded.connection();
			PreparedStatement prepared = generatedKey
					? connection.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS)
					: connection.prepareStatement(sql);
			try {
				LockStatementRunner.this.dialect.bound(prepared, millis);
				statement.bind(prepared, this.parameters);
				return prepared;
			}
			catch (SQLException | RuntimeException ex) {
				prepared.close();
				throw ex;
			}
		}

		OperationResult runOne(Statement statement) throws SQLException {
			try (PreparedStatement prepared = prepare(statement, false)) {
				OperationResult result = OperationResult.NONE;
				boolean isResultSet = prepared.execute();
				while (true) {
					if (isResultSet) {
						try (ResultSet rows = prepared.getResultSet()) {
							result = OperationResult.of(rows, result.updateCount());
						}
					}
					else {
						int count = prepared.getUpdateCount();
						if (count == -1) {
							return result;
						}
						result = new OperationResult(count, result.token(), result.waitMillis());
					}
					isResultSet = prepared.getMoreResults();
				}
			}
		}

		OperationResult runForKey(Statement statement) throws SQLException {
			try (PreparedStatement prepared = prepare(statement, true)) {
				int count = prepared.executeUpdate();
				try (ResultSet keys = prepared.getGeneratedKeys()) {
					Long token = null;
					if (keys.next()) {
						long key = keys.getLong(1);
						token = (key > 0) ? key : null;
					}
					return new OperationResult(count, token, null);
				}
			}
		}

	}

}
