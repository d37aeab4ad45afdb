package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import dev.distlock.jdbc.LockStatements.Operation;
import dev.distlock.jdbc.LockStatements.Statement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Runs the JDBC backend's operations, each on a connection of its own borrowed straight from the data source (never
 * joining the caller's transaction): in one round trip where the dialect batches, else in one statement in
 * autocommit or one short transaction. Every value is bound; an attempt's statements are bounded by its
 * {@link LockWaitBudget}. Errors come out translated into Spring's {@link DataAccessException} tree.
 */
final class LockStatementRunner {

	private static final Log logger = LogFactory.getLog(LockStatementRunner.class);

	/** Connections an idempotent operation tries when they turn out to be dead. */
	private static final int CONNECTION_ATTEMPTS = 3;

	private final DataSource dataSource;

	private final JdbcDialect dialect;

	private final SqlFailures failures;

	private final String tableName;

	LockStatementRunner(DataSource dataSource, JdbcDialect dialect, SqlFailures failures, String tableName) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.failures = failures;
		this.tableName = tableName;
	}

	/**
	 * Runs an operation once.
	 * @param operation the operation
	 * @param parameters its values by name
	 * @param budget how long its statements may wait for row locks, or {@code null} for no bound
	 * @return the outcome
	 * @throws CannotGetJdbcConnectionException if the pool gave no connection: nothing was sent
	 * @throws DataAccessException if the database failed
	 */
	OperationResult run(Operation operation, Map<String, Object> parameters, @Nullable LockWaitBudget budget) {
		try (Connection connection = connection(operation)) {
			return run(connection, operation, parameters, budget);
		}
		catch (SQLException ex) {
			throw this.failures.translate(task(operation), ex);
		}
	}

	/**
	 * Runs an idempotent operation, on another connection when its connection turns out to be dead (a pool may hand
	 * out connections whose session was killed), on at most {@value #CONNECTION_ATTEMPTS}. A pool that has no
	 * connection to give is not asked again: that would wait for its timeout once more.
	 * @param operation the operation
	 * @param parameters its values by name
	 * @param budget how long its statements may wait for row locks, or {@code null} for no bound
	 * @return the outcome
	 * @throws CannotGetJdbcConnectionException if the pool gave no connection
	 * @throws DataAccessException if the database failed
	 */
	OperationResult runIdempotent(Operation operation, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) {
		for (int attempt = 1;; attempt++) {
			try {
				return run(operation, parameters, budget);
			}
			catch (CannotGetJdbcConnectionException ex) {
				throw ex;
			}
			catch (DataAccessException ex) {
				if (attempt >= CONNECTION_ATTEMPTS || !SqlFailures.isBrokenConnection(ex)) {
					throw ex;
				}
				logger.debug("Retrying " + operation.name() + " on another connection", ex);
			}
		}
	}

	/**
	 * Runs a query without parameters, for checks and the clock.
	 * @param statement the query
	 * @param reader reads the result
	 * @param <T> what the result gives
	 * @return what the reader returned
	 * @throws DataAccessException if the database failed
	 */
	<T> @Nullable T query(Statement statement, ResultReader<T> reader) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement prepared = connection.prepareStatement(statement.sql());
				ResultSet result = prepared.executeQuery()) {
			return reader.read(result);
		}
		catch (SQLException ex) {
			throw this.failures.translate("distlock query on " + this.tableName, ex);
		}
	}

	/** Reads a query's result. */
	@FunctionalInterface
	interface ResultReader<T> {

		@Nullable T read(ResultSet result) throws SQLException;

	}

	private Connection connection(Operation operation) {
		try {
			return this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			throw new CannotGetJdbcConnectionException("No connection for " + task(operation) + ": " + ex.getMessage(),
					ex);
		}
	}

	private String task(Operation operation) {
		return "distlock " + operation.name() + " on " + this.tableName;
	}

	private OperationResult run(Connection connection, Operation operation, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		long previous = (budget != null) ? this.dialect.beginBounded(connection, budget.remainingMillis()) : -1;
		try {
			List<Statement> statements = operation.statements();
			if (this.dialect.batched() || statements.size() == 1) {
				Statement statement = this.dialect.batched() ? operation.joined() : statements.get(0);
				return inAutoCommit(connection, () -> operation.generatedKey()
						? runForKey(connection, statement, parameters, budget)
						: runOne(connection, statement, parameters, budget));
			}
			return inTransaction(connection, statements, parameters, budget);
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

	private OperationResult inTransaction(Connection connection, List<Statement> statements,
			Map<String, Object> parameters, @Nullable LockWaitBudget budget) throws SQLException {
		return transaction(connection, () -> {
			OperationResult result = OperationResult.NONE;
			for (Statement statement : statements) {
				result = runOne(connection, statement, parameters, budget);
			}
			return result;
		});
	}

	/**
	 * Runs work in a transaction of its own on a connection: committed if it returns, rolled back if it throws; the
	 * connection's autocommit is as before afterwards.
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

	private PreparedStatement prepare(Connection connection, Statement statement, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget, boolean generatedKey) throws SQLException {
		long millis = (budget != null) ? budget.remainingMillis() : 0;
		String sql = this.dialect.bounded(statement.sql(), millis);
		PreparedStatement prepared = generatedKey
				? connection.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS)
				: connection.prepareStatement(sql);
		try {
			this.dialect.bound(prepared, millis);
			statement.bind(prepared, parameters);
			return prepared;
		}
		catch (SQLException | RuntimeException ex) {
			prepared.close();
			throw ex;
		}
	}

	private OperationResult runOne(Connection connection, Statement statement, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		try (PreparedStatement prepared = prepare(connection, statement, parameters, budget, false)) {
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

	private OperationResult runForKey(Connection connection, Statement statement, Map<String, Object> parameters,
			@Nullable LockWaitBudget budget) throws SQLException {
		try (PreparedStatement prepared = prepare(connection, statement, parameters, budget, true)) {
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
