package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.distlock.core.support.SharedTimer;
import dev.distlock.jdbc.LockStatements.Statement;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * Deletes the rows of released and expired locks in the background, so that a lock per
 * business object costs nothing once released. Each run deletes batches of at most
 * {@code batchSize} rows, each a short transaction that selects with
 * {@code FOR UPDATE SKIP LOCKED} and deletes exactly those rows, so the sweep never waits
 * for a lock and cannot deadlock with an acquire. A run walks the primary key once (from
 * the table's start every batch would scan the held rows again) and stops at the first
 * short batch or after one interval; each batch's round trips are bounded by the call
 * timeout. Runs are ticked by distlock's timer ({@link SharedTimer}) until
 * {@link #close()}, run on the provider's background lane ({@link BackgroundLane}) and
 * never overlap; a renewal queued behind a run waits for one batch at most. See
 * docs/jdbc.md.
 */
final class LockTableSweeper implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockTableSweeper.class);

	/**
	 * Before every row: no row has an empty key with an empty kind (a row's kind is one
	 * letter).
	 */
	private static final Map<String, Object> START = Map.of("afterKey", "", "afterKind", "", "afterSlot",
			Long.MIN_VALUE);

	private final BoundedConnections connections;

	private final SqlFailures failures;

	private final Statement select;

	private final Statement delete;

	private final Duration interval;

	private final int batchSize;

	private final String tableName;

	private final LongAdder swept = new LongAdder();

	private final AtomicBoolean running = new AtomicBoolean();

	private @Nullable Future<?> schedule;

	private volatile boolean closed;

	private volatile boolean failing;

	private final BackgroundLane lane;

	LockTableSweeper(BoundedConnections connections, LockStatements statements, SqlFailures failures, String tableName,
			Duration interval, int batchSize, BackgroundLane lane) {
		this.lane = lane;
		this.connections = connections;
		this.failures = failures;
		// with the settings of the batch's transaction, if the dialect has any, in one
		// round trip
		this.select = statements.get("sweep-select").joined();
		this.delete = statements.get("sweep-delete").single();
		this.tableName = tableName;
		this.interval = interval;
		this.batchSize = batchSize;
	}

	/**
	 * Starts sweeping every interval, on the shared timer and io threads; a zero interval
	 * sweeps only when asked.
	 */
	synchronized void start() {
		if (this.interval.isZero() || this.schedule != null || this.closed) {
			return;
		}
		long period = this.interval.toMillis();
		// applications started together should not sweep in step
		long first = period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
		this.schedule = SharedTimer.scheduleWithFixedDelay(this::tick, first, period, TimeUnit.MILLISECONDS);
	}

	/**
	 * The background sweep's task on the shared timer, while it is scheduled; for tests.
	 * @return the task, or {@code null} before {@link #start()}, after {@link #close()}
	 * and when only asked sweeps run
	 */
	synchronized @Nullable Future<?> schedule() {
		return this.schedule;
	}

	/**
	 * On the timer (or asked by a test): hands a run to the lane unless the previous one
	 * still goes.
	 */
	void tick() {
		if (this.closed || !this.running.compareAndSet(false, true)) {
			return;
		}
		long started = System.nanoTime();
		this.lane.execute(() -> runFrom(START, started));
	}

	/**
	 * On the lane: sweeps from a position until the run is done, or until other work
	 * waits in the lane; then queues the rest of the run behind that work.
	 */
	private void runFrom(Map<String, Object> from, long startedNanos) {
		Map<String, Object> rest = null;
		try {
			if (!this.closed) {
				rest = sweepQuietly(from, startedNanos);
			}
		}
		finally {
			if (rest != null && !this.closed) {
				Map<String, Object> next = rest;
				this.lane.execute(() -> runFrom(next, startedNanos));
			}
			else {
				this.running.set(false);
			}
		}
	}

	/**
	 * Rows deleted so far by this provider's sweeps, for a meter.
	 * @return the number of rows
	 */
	long sweptRows() {
		return this.swept.sum();
	}

	private @Nullable Map<String, Object> sweepQuietly(Map<String, Object> from, long startedNanos) {
		try {
			Run run = sweep(() -> this.connections.openInBackground(task()), from, startedNanos,
					this.lane::othersWaiting);
			if (this.failing) {
				this.failing = false;
				logger.info("distlock's sweep of " + this.tableName + " works again");
			}
			return run.rest();
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				this.failing = true;
				logger.warn("distlock's sweep of " + this.tableName + " failed (" + ex.getMessage()
						+ "); released rows stay until it works again", ex);
			}
			else {
				logger.debug("distlock's sweep of " + this.tableName + " failed again", ex);
			}
			return null;
		}
	}

	/**
	 * One run: batches until one comes back short or the run has lasted one interval.
	 * @return the rows deleted
	 * @throws DataAccessException if the database failed
	 */
	int sweep() {
		return sweep(() -> this.connections.open(this.connections.deadline(), task()), START, System.nanoTime(),
				() -> false)
			.deleted();
	}

	private Run sweep(Supplier<BoundedConnections.Bounded> opener, Map<String, Object> from, long startedNanos,
			BooleanSupplier giveWay) {
		try {
			return sweepBatches(opener, from, startedNanos, giveWay);
		}
		catch (SQLException ex) {
			throw this.failures.translate(task(), ex);
		}
	}

	private String task() {
		return "distlock sweep of " + this.tableName;
	}

	/**
	 * Batches from a position until one comes back short or the run has lasted one
	 * interval; or, after a full batch, as soon as others wait (then the run's rest
	 * starts after that batch).
	 */
	private Run sweepBatches(Supplier<BoundedConnections.Bounded> opener, Map<String, Object> from, long startedNanos,
			BooleanSupplier giveWay) throws SQLException {
		long start = System.nanoTime();
		long budget = this.interval.isZero() ? Long.MAX_VALUE : this.interval.toNanos();
		int total = 0;
		int batches = 0;
		Map<String, Object> rest = null;
		try (BoundedConnections.Bounded bounded = opener.get()) {
			Connection connection = bounded.connection();
			int isolation = connection.getTransactionIsolation();
			connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
			try {
				// each batch starts after the last row the batch before selected, in
				// primary-key order: a run walks the key once
				Batch batch = new Batch(0, 0, from);
				do {
					bounded.bound(this.connections.deadline());
					batch = sweepBatch(connection, batch.next());
					total += batch.deleted();
					batches++;
					if (batch.selected() == this.batchSize && giveWay.getAsBoolean()) {
						rest = batch.next();
						break;
					}
				}
				while (batch.selected() == this.batchSize && System.nanoTime() - startedNanos < budget);
			}
			finally {
				connection.setTransactionIsolation(isolation);
			}
		}
		if (logger.isDebugEnabled() && total > 0) {
			logger.debug("Swept " + total + " rows from " + this.tableName + " in " + batches + " batches, "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms"
					+ ((rest != null) ? ", giving way to other background work" : ""));
		}
		return new Run(total, rest);
	}

	/**
	 * Selects one batch of the released and expired rows after a position and deletes
	 * them (a dialect may keep some of them: PostgreSQL keeps a head row whose lock still
	 * has live members).
	 */
	private Batch sweepBatch(Connection connection, Map<String, Object> after) throws SQLException {
		Batch batch = LockStatementRunner.transaction(connection, () -> {
			List<Map<String, Object>> rows = new ArrayList<>();
			try (PreparedStatement select = connection.prepareStatement(this.select.sql())) {
				Map<String, Object> values = new HashMap<>(after);
				values.put("batch", this.batchSize);
				this.select.bind(select, values);
				// the settings' row first where there are any, then the batch; as read:
				// MariaDB's binary keys go back as the same bytes
				LockStatementRunner.readRows(select, "lock_key", (row) -> rows
					.add(Map.of("key", row.getObject(1), "kind", row.getObject(2), "slot", row.getObject(3))));
			}
			if (rows.isEmpty()) {
				return new Batch(0, 0, after);
			}
			int deleted = 0;
			try (PreparedStatement delete = connection.prepareStatement(this.delete.sql())) {
				for (Map<String, Object> row : rows) {
					this.delete.bind(delete, row);
					delete.addBatch();
				}
				for (int count : delete.executeBatch()) {
					// a driver that rewrites the batch may not say (SUCCESS_NO_INFO)
					deleted += (count == java.sql.Statement.SUCCESS_NO_INFO) ? 1 : Math.max(count, 0);
				}
			}
			Map<String, Object> last = rows.get(rows.size() - 1);
			return new Batch(rows.size(), deleted,
					Map.of("afterKey", last.get("key"), "afterKind", last.get("kind"), "afterSlot", last.get("slot")));
		});
		this.swept.add(batch.deleted());
		return batch;
	}

	/**
	 * One batch: the rows it selected and deleted, and where the next batch starts (after
	 * its last row, or where it started if it found none).
	 */
	private record Batch(int selected, int deleted, Map<String, Object> next) {
	}

	/**
	 * A run, or the part of one before it gave way: the rows it deleted, and where its
	 * rest starts ({@code null} when it is done).
	 */
	private record Run(int deleted, @Nullable Map<String, Object> rest) {
	}

	/**
	 * Unschedules the background sweep; a run that already goes ends by itself.
	 */
	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.schedule != null) {
			this.schedule.cancel(false);
			this.schedule = null;
		}
	}

}
