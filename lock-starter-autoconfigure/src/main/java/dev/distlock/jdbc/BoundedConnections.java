package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Connections for the JDBC backend's calls, each bounded by a deadline whatever the pool
 * and the driver are set to. The connection is borrowed on a borrowing thread while the
 * caller waits at most until the deadline: a pool waiting out its own connection timeout
 * (HikariCP: 30 s), or validating an idle connection whose peer went silent, cannot hold
 * the caller longer; a connection that arrives after the caller gave up goes straight
 * back. Every read on the connection is then bounded by the time left
 * ({@link Connection#setNetworkTimeout}), unless the connection already has a shorter
 * bound of its own (pgjdbc's {@code socketTimeout}, for instance); the previous bound is
 * restored when the connection goes back. While borrows the callers gave up on still wait
 * for the pool (at most {@value #MAX_ABANDONED}), a new call fails at once rather than
 * leave one more thread waiting. A read that runs into the bound fails with the driver's
 * connection error (SQLState {@code 08…}): pgjdbc and MariaDB Connector/J close such a
 * connection, and HikariCP evicts it instead of pooling it again. H2 has no network
 * timeout: embedded, it has no network either, so its connections are borrowed on the
 * caller's thread, without the hand-over.
 */
final class BoundedConnections {

	private static final Log logger = LogFactory.getLog(BoundedConnections.class);

	/** Borrowing threads, shared by every provider; idle ones end after a minute. */
	private static final ThreadPoolExecutor BORROWERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60,
			TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
				Thread thread = new Thread(task, "distlock-jdbc-borrow");
				thread.setDaemon(true);
				return thread;
			});

	/**
	 * Borrows whose callers gave up that may still wait for the pool before new calls
	 * fail at once.
	 */
	static final int MAX_ABANDONED = 16;

	private final DataSource dataSource;

	private final long callTimeoutNanos;

	private final AtomicInteger abandoned = new AtomicInteger();

	private final boolean networked;

	BoundedConnections(DataSource dataSource, Duration callTimeout, JdbcDialect dialect) {
		this.dataSource = dataSource;
		this.callTimeoutNanos = callTimeout.toNanos();
		this.networked = dialect.networked();
	}

	/**
	 * The deadline of a call that starts now and has nothing tighter to keep: now plus
	 * the call timeout.
	 * @return the deadline on the {@link System#nanoTime()} scale
	 */
	long deadline() {
		return System.nanoTime() + this.callTimeoutNanos;
	}

	/**
	 * Borrows a connection by the deadline and bounds its reads by the time then left.
	 * @param deadlineNanos when the call must have returned, on the
	 * {@link System#nanoTime()} scale
	 * @param task what the connection is for, for messages
	 * @return the connection, to be closed
	 * @throws CannotGetJdbcConnectionException if no connection came by the deadline
	 * (nothing was sent)
	 */
	Bounded open(long deadlineNanos, String task) {
		Connection connection = borrow(deadlineNanos, task);
		try {
			return new Bounded(connection, deadlineNanos);
		}
		catch (SQLException | RuntimeException ex) {
			closeQuietly(connection);
			throw new CannotGetJdbcConnectionException(
					"Could not bound the connection for " + task + ": " + ex.getMessage(),
					(ex instanceof SQLException sql) ? sql : new SQLException(ex));
		}
	}

	private Connection borrow(long deadlineNanos, String task) {
		long left = deadlineNanos - System.nanoTime();
		if (left <= 0) {
			throw new CannotGetJdbcConnectionException("No time left to borrow a connection for " + task);
		}
		if (!this.networked) {
			try {
				return this.dataSource.getConnection();
			}
			catch (SQLException ex) {
				throw new CannotGetJdbcConnectionException("No connection for " + task + ": " + ex.getMessage(), ex);
			}
		}
		if (this.abandoned.get() >= MAX_ABANDONED) {
			throw new CannotGetJdbcConnectionException("No connection for " + task + ": " + MAX_ABANDONED
					+ " earlier borrows are still waiting for the pool");
		}
		CompletableFuture<Connection> borrowed = new CompletableFuture<>();
		BORROWERS.execute(() -> {
			try {
				Connection connection = this.dataSource.getConnection();
				if (!borrowed.complete(connection)) {
					// the caller gave up meanwhile
					this.abandoned.decrementAndGet();
					closeQuietly(connection);
				}
			}
			catch (SQLException | RuntimeException ex) {
				if (!borrowed.completeExceptionally(ex)) {
					this.abandoned.decrementAndGet();
				}
			}
		});
		try {
			return borrowed.get(left, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | InterruptedException ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			if (borrowed.completeExceptionally(ex)) {
				this.abandoned.incrementAndGet();
				throw new CannotGetJdbcConnectionException("No connection for " + task + " within its call "
						+ "deadline (" + TimeUnit.NANOSECONDS.toMillis(left) + " ms); the pool or the network is "
						+ "too slow", new SQLException(ex));
			}
			// it came at that very moment: the caller is out of time all the same
			closeQuietly(borrowed.isCompletedExceptionally() ? null : borrowed.getNow(null));
			throw new CannotGetJdbcConnectionException("No connection for " + task + " within its call deadline");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof SQLException sql) {
				throw new CannotGetJdbcConnectionException("No connection for " + task + ": " + sql.getMessage(), sql);
			}
			throw new CannotGetJdbcConnectionException("No connection for " + task + ": " + cause,
					new SQLException(cause));
		}
	}

	private static void closeQuietly(@Nullable Connection connection) {
		if (connection == null) {
			return;
		}
		try {
			connection.close();
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not return a connection", ex);
		}
	}

	/**
	 * A borrowed connection whose reads are bounded; closing restores its own bound and
	 * returns it.
	 */
	static final class Bounded implements AutoCloseable {

		private final Connection connection;

		private final int previous;

		private boolean changed;

		private Bounded(Connection connection, long deadlineNanos) throws SQLException {
			this.connection = connection;
			this.previous = connection.getNetworkTimeout();
			bound(deadlineNanos);
		}

		Connection connection() {
			return this.connection;
		}

		/**
		 * Bounds the next reads by the time left until a deadline (at least a
		 * millisecond), unless the connection's own bound is shorter: called before each
		 * round trip of a call that makes several.
		 * @param deadlineNanos the deadline
		 * @throws SQLException if the driver refused
		 */
		void bound(long deadlineNanos) throws SQLException {
			long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
			int timeout = (int) Math.min(Integer.MAX_VALUE, millis);
			if (this.previous == 0 || timeout < this.previous) {
				this.connection.setNetworkTimeout(BORROWERS, timeout);
				this.changed = true;
			}
		}

		@Override
		public void close() throws SQLException {
			try {
				if (this.changed && !this.connection.isClosed()) {
					this.connection.setNetworkTimeout(BORROWERS, this.previous);
				}
			}
			catch (SQLException ex) {
				// a connection that broke is not pooled again anyway
				logger.trace("Could not restore the network timeout", ex);
			}
			finally {
				this.connection.close();
			}
		}

	}

	/**
	 * An executor for {@link Connection#setNetworkTimeout} on connections this class did
	 * not open (the listening connection).
	 * @return the executor
	 */
	static Executor timeoutExecutor() {
		return BORROWERS;
	}

}
