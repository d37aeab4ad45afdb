package dev.distlock.jdbc;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.support.SharedTimer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One provider's background work that nobody waits for (its watchdog renewal batches and
 * its sweep runs), run in the order given on one of the shared io threads
 * ({@link JdbcThreads#io()}), one task at a time while the lane keeps up, so holding
 * leases costs one io thread. A long task gives way to those queued behind it by queueing
 * its own rest ({@link #othersWaiting()}), so a sweep delays a renewal by one batch at
 * most. A task may say how long it can wait ({@link #execute(Runnable, long)}; a renewal
 * batch a sixth of its lease, a quarter of the margin the watchdog's default interval
 * leaves): once the head task has waited that long, a second io thread drains the lane
 * beside the first until it is empty, so a batch stuck on the database does not hold up
 * the renewals behind it. Never more than two threads: a database that does not answer
 * holds two, not one per batch, and the leases behind them are lost when their ends pass.
 */
final class BackgroundLane {

	private static final Log logger = LogFactory.getLog(BackgroundLane.class);

	private final Queue<Queued> tasks = new ConcurrentLinkedQueue<>();

	/** Threads draining the lane now: 0, 1, or 2 while the lane is behind. */
	private final AtomicInteger draining = new AtomicInteger();

	/** Whether a check for a head that waited too long is scheduled on the timer. */
	private final AtomicBoolean checkScheduled = new AtomicBoolean();

	private final Executor executor;

	BackgroundLane(Executor executor) {
		this.executor = executor;
	}

	/**
	 * Queues a task behind those already queued; it never brings a second thread.
	 * @param task the task; what it throws is logged
	 */
	void execute(Runnable task) {
		execute(task, Long.MAX_VALUE);
	}

	/**
	 * Queues a task behind those already queued; once it has waited at the head of the
	 * lane for {@code patienceNanos}, a second thread drains the lane.
	 * @param task the task; what it throws is logged
	 * @param patienceNanos how long the task may wait before a second thread takes it
	 */
	void execute(Runnable task, long patienceNanos) {
		long now = System.nanoTime();
		long helpAt = (patienceNanos >= Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + patienceNanos;
		this.tasks.add(new Queued(task, helpAt));
		if (!startIfIdle()) {
			helpIfBehind();
			scheduleCheck(helpAt);
		}
	}

	/**
	 * Whether tasks wait behind the one that runs now.
	 * @return whether a task is queued
	 */
	boolean othersWaiting() {
		return !this.tasks.isEmpty();
	}

	/**
	 * Threads draining the lane now; for tests.
	 * @return 0, 1 or 2
	 */
	int threads() {
		return this.draining.get();
	}

	private boolean startIfIdle() {
		return this.draining.compareAndSet(0, 1) && start();
	}

	/** A second thread, if the task at the head has waited longer than it may. */
	private void helpIfBehind() {
		Queued head = this.tasks.peek();
		if (head != null && head.helpAt != Long.MAX_VALUE && System.nanoTime() - head.helpAt >= 0
				&& this.draining.compareAndSet(1, 2)) {
			start();
		}
	}

	/**
	 * A check on distlock's timer when a task queued behind one that runs reaches its
	 * patience: without it, a task that runs long (a batch waiting for a row) would hold
	 * the lane until the next task came.
	 */
	private void scheduleCheck(long helpAt) {
		if (helpAt != Long.MAX_VALUE && this.draining.get() == 1 && this.checkScheduled.compareAndSet(false, true)) {
			SharedTimer.schedule(this::check, Math.max(0, helpAt - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
	}

	private void check() {
		this.checkScheduled.set(false);
		helpIfBehind();
		Queued head = this.tasks.peek();
		if (head != null) {
			scheduleCheck(head.helpAt);
		}
	}

	private boolean start() {
		try {
			this.executor.execute(this::drain);
			return true;
		}
		catch (RuntimeException ex) {
			this.draining.decrementAndGet();
			throw ex;
		}
	}

	private void drain() {
		try {
			for (Queued queued = this.tasks.poll(); queued != null; queued = this.tasks.poll()) {
				helpIfBehind();
				try {
					queued.task.run();
				}
				catch (RuntimeException ex) {
					logger.warn("A background task of distlock's JDBC backend failed", ex);
				}
			}
		}
		finally {
			this.draining.decrementAndGet();
			// a task queued after the last poll and before the count went down
			if (!this.tasks.isEmpty()) {
				startIfIdle();
			}
		}
	}

	/** A task and when a second thread may take the lane's head if it is still there. */
	private record Queued(Runnable task, long helpAt) {
	}

}
