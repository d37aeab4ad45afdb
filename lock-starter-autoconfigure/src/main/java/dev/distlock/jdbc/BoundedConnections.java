package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.distlock.core.support.SharedTimer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Connections for the JDBC backend's calls, each bounded by a deadline whatever the pool
 * and the driver are set to. The connection is borrowed on an io thread
 * ({@link JdbcThreads}) while the caller waits at most until the deadline (one that
 * arrives later goes straight back), and every read on it is bounded by the time left
 * ({@link Connection#setNetworkTimeout}) unless it has a shorter bound of its own. Once
 * {@value #MAX_ABANDONED} borrows that callers gave up on still wait for the pool, a new
 * call fails at once. H2, embedded, is borrowed on the caller's thread. A connection
 * whose call succeeded is kept for the next call ({@link Bounded#reusable()}) for at most
 * {@value #KEEP_MILLIS} ms idle and {@value #MAX_OUT_MILLIS} ms out (under HikariCP's 500
 * ms validation window and 2 s leak threshold), then returned by distlock's timer
 * ({@link dev.distlock.core.support.SharedTimer}); one whose call failed goes back at
 * once. Background runs borrow on their own thread ({@link #openInBackground(String)}).
 * See docs/jdbc.md.
 */
final class BoundedConnections {

	private static final Log logger = LogFactory.getLog(BoundedConnections.class);

	/**
	 * Borrows whose callers gave up that may still wait for the pool before new calls
	 * fail at once.
	 */
	static final int MAX_ABANDONED = 16;

	/** How long a warm connection may stay idle before it goes back to the pool. */
	static final long KEEP_MILLIS = 100;

	/** How long a connection may stay out of the pool, however busy. */
	static final long MAX_OUT_MILLIS = 1000;

	private static final long KEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(KEEP_MILLIS);

	private static final long MAX_OUT_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_OUT_MILLIS);

	/** Warm connections, the most recently used last. */
	private final ConcurrentLinkedDeque<Warm> warm = new ConcurrentLinkedDeque<>();

	private final AtomicBoolean sweepScheduled = new AtomicBoolean();

	private volatile boolean closed;

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
		return open(deadlineNanos, task, false);
	}

	/**
	 * Takes the most recently used warm connection on the caller's thread, if one is
	 * kept, else borrows one as {@link #open(long, String)} does.
	 * @param deadlineNanos when the call must have returned, on the
	 * {@link System#nanoTime()} scale
	 * @param task what the connection is for, for messages
	 * @return the connection, to be closed
	 * @throws CannotGetJdbcConnectionException if no connection came by the deadline
	 * (nothing was sent)
	 */
	Bounded openWarm(long deadlineNanos, String task) {
		return open(deadlineNanos, task, true);
	}

	/**
	 * Borrows a connection on the calling thread, for work that no caller waits for and
	 * that already runs on a thread of the backend's own, and bounds its reads by the
	 * call timeout from when it came.
	 * @param task what the connection is for, for messages
	 * @return the connection, to be closed
	 * @throws CannotGetJdbcConnectionException if the pool gave no connection
	 */
	Bounded openInBackground(String task) {
		return bound(getConnection(task), deadline(), task);
	}

	private Bounded open(long deadlineNanos, String task, boolean warmFirst) {
		Warm kept = warmFirst ? takeWarm() : null;
		if (kept != null) {
			if (deadlineNanos - System.nanoTime() <= 0) {
				this.warm.offerLast(kept);
				throw new CannotGetJdbcConnectionException("No time left to borrow a connection for " + task);
			}
			try {
				return new Bounded(this, kept, deadlineNanos);
			}
			catch (SQLException | RuntimeException ex) {
				// fall back to the pool
				kept.giveBack();
			}
		}
		return bound(borrow(deadlineNanos, task), deadlineNanos, task);
	}

	private Bounded bound(Connection connection, long deadlineNanos, String task) {
		try {
			return new Bounded(this, connection, deadlineNanos);
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
			return getConnection(task);
		}
		if (this.abandoned.get() >= MAX_ABANDONED) {
			throw new CannotGetJdbcConnectionException("No connection for " + task + ": " + MAX_ABANDONED
					+ " earlier borrows are still waiting for the pool");
		}
		CompletableFuture<Connection> borrowed = new CompletableFuture<>();
		JdbcThreads.io().execute(() -> {
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

	private Connection getConnection(String task) {
		try {
			return this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			throw new CannotGetJdbcConnectionException("No connection for " + task + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * The most recently used warm connection, unless it has been idle too long (then it
	 * and every older one go back to the pool).
	 * @return the connection, or {@code null}
	 */
	private @Nullable Warm takeWarm() {
		Warm kept = this.warm.pollLast();
		if (kept == null) {
			return null;
		}
		if (System.nanoTime() - kept.idleSince < KEEP_NANOS) {
			return kept;
		}
		kept.giveBack();
		sweep();
		return null;
	}

	/**
	 * Keeps a connection whose call succeeded for the next call, or gives it back to the
	 * pool if it has been out long enough or the provider closed.
	 */
	private void keep(Warm kept) {
		long now = System.nanoTime();
		if (this.closed || now - kept.borrowedAt >= MAX_OUT_NANOS) {
			kept.giveBack();
			return;
		}
		kept.idleSince = now;
		this.warm.offerLast(kept);
		if (this.closed) {
			drain();
		}
		else if (this.sweepScheduled.compareAndSet(false, true)) {
			SharedTimer.schedule(this::sweepAndReschedule, KEEP_MILLIS, TimeUnit.MILLISECONDS);
		}
	}

	private void sweepAndReschedule() {
		this.sweepScheduled.set(false);
		sweep();
		if (!this.warm.isEmpty() && !this.closed && this.sweepScheduled.compareAndSet(false, true)) {
			SharedTimer.schedule(this::sweepAndReschedule, KEEP_MILLIS, TimeUnit.MILLISECONDS);
		}
	}

	/** Gives the connections idle too long back to the pool, the oldest first. */
	private void sweep() {
		while (true) {
			Warm oldest = this.warm.peekFirst();
			if (oldest == null || System.nanoTime() - oldest.idleSince < KEEP_NANOS) {
				return;
			}
			if (this.warm.removeFirstOccurrence(oldest)) {
				oldest.giveBack();
			}
		}
	}

	private void drain() {
		Warm kept;
		while ((kept = this.warm.pollFirst()) != null) {
			kept.giveBack();
		}
	}

	/**
	 * Gives every warm connection back to the pool and keeps none from now on.
	 */
	void close() {
		this.closed = true;
		drain();
	}

	/**
	 * A connection kept out of the pool between calls, with the network timeout it had
	 * when it was borrowed.
	 */
	private static final class Warm {

		final Connection connection;

		final int previous;

		final long borrowedAt;

		boolean changed;

		volatile long idleSince;

		Warm(Connection connection, int previous, long borrowedAt) {
			this.connection = connection;
			this.previous = previous;
			this.borrowedAt = borrowedAt;
		}

		/** Restores the connection's own network timeout and returns it to its pool. */
		void giveBack() {
			try {
				if (this.changed && !this.connection.isClosed()) {
					this.connection.setNetworkTimeout(JdbcThreads.io(), this.previous);
				}
			}
			catch (SQLException | RuntimeException ex) {
				// a connection that broke is not pooled again anyway
				logger.trace("Could not restore the network timeout", ex);
			}
			finally {
				closeQuietly(this.connection);
			}
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
	 * A borrowed connection whose reads are bounded; closing keeps it warm for the next
	 * call if the call marked it {@linkplain #reusable() reusable}, else restores its own
	 * bound and returns it.
	 */
	static final class Bounded implements AutoCloseable {

		private final BoundedConnections owner;

		private final Warm state;

		private boolean reusable;

		private Bounded(BoundedConnections owner, Connection connection, long deadlineNanos) throws SQLException {
			this(owner, new Warm(connection, connection.getNetworkTimeout(), System.nanoTime()), deadlineNanos);
		}

		private Bounded(BoundedConnections owner, Warm state, long deadlineNanos) throws SQLException {
			this.owner = owner;
			this.state = state;
			bound(deadlineNanos);
		}

		Connection connection() {
			return this.state.connection;
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
			int previous = this.state.previous;
			if (previous == 0 || timeout < previous) {
				this.state.connection.setNetworkTimeout(JdbcThreads.io(), timeout);
				this.state.changed = true;
			}
			else if (this.state.changed) {
				this.state.connection.setNetworkTimeout(JdbcThreads.io(), previous);
				this.state.changed = false;
			}
		}

		/**
		 * Marks the connection as fit for the next call: the call succeeded and left it
		 * as it found it (autocommit, no open transaction).
		 */
		void reusable() {
			this.reusable = true;
		}

		@Override
		public void close() {
			if (this.reusable && this.owner.networked) {
				this.owner.keep(this.state);
			}
			else {
				this.state.giveBack();
			}
		}

	}

	/**
	 * An executor for {@link Connection#setNetworkTimeout} on connections this class did
	 * not open (the listening connection).
	 * @return the executor
	 */
	static Executor timeoutExecutor() {
		return JdbcThreads.io();
	}

}
