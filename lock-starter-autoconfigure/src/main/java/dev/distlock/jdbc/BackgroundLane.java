package dev.distlock.jdbc;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One provider's background work that nobody waits for (its watchdog renewal batches and
 * its sweep runs), run one task at a time, in the order given, on one of the shared io
 * threads ({@link JdbcThreads#io()}). However many batches fall due at once, holding
 * leases costs one io thread, and a database that does not answer holds that one thread,
 * not one per batch: the batches behind it wait, and the core counts a lease whose answer
 * comes after its end as lost. A long task gives way to those queued behind it by
 * queueing its own rest ({@link #othersWaiting()}), as the sweep does between batches, so
 * a sweep of a large table delays a renewal by one batch at most.
 */
final class BackgroundLane {

	private static final Log logger = LogFactory.getLog(BackgroundLane.class);

	private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean draining = new AtomicBoolean();

	private final Executor executor;

	BackgroundLane(Executor executor) {
		this.executor = executor;
	}

	/**
	 * Queues a task behind those already queued.
	 * @param task the task; what it throws is logged
	 */
	void execute(Runnable task) {
		this.tasks.add(task);
		drainIfIdle();
	}

	/**
	 * Whether tasks wait behind the one that runs now.
	 * @return whether a task is queued
	 */
	boolean othersWaiting() {
		return !this.tasks.isEmpty();
	}

	private void drainIfIdle() {
		if (this.draining.compareAndSet(false, true)) {
			try {
				this.executor.execute(this::drain);
			}
			catch (RuntimeException ex) {
				this.draining.set(false);
				throw ex;
			}
		}
	}

	private void drain() {
		try {
			for (Runnable task = this.tasks.poll(); task != null; task = this.tasks.poll()) {
				try {
					task.run();
				}
				catch (RuntimeException ex) {
					logger.warn("A background task of distlock's JDBC backend failed", ex);
				}
			}
		}
		finally {
			this.draining.set(false);
			// a task queued after the last poll and before the flag went down
			if (!this.tasks.isEmpty()) {
				drainIfIdle();
			}
		}
	}

}
