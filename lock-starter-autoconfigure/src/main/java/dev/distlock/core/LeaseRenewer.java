package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one scheduler that keeps leases alive: it renews watchdog leases every interval and marks fixed leases lost
 * when they run out. Shared by every lease of a {@link LockTemplate} (no thread or timer per lock); its threads are
 * daemons. A renewal is serialised with the lease's release, so no renewal is ever sent after a release returns.
 *
 * @since 0.1.0
 */
public final class LeaseRenewer implements AutoCloseable {

	private final ScheduledThreadPoolExecutor scheduler;

	/**
	 * Creates a renewer with the given number of threads.
	 * @param threads how many renewals may be in flight at once
	 */
	public LeaseRenewer(int threads) {
		if (threads < 1) {
			throw new LockConfigurationException("distlock.watchdog.threads must be at least 1, was " + threads);
		}
		AtomicInteger count = new AtomicInteger();
		ThreadFactory factory = (runnable) -> {
			Thread thread = new Thread(runnable, "distlock-renewer-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
		this.scheduler = new ScheduledThreadPoolExecutor(threads, factory);
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	/** Creates a renewer with two threads. */
	public LeaseRenewer() {
		this(2);
	}

	ScheduledFuture<?> every(Duration interval, Runnable task) {
		long nanos = interval.toNanos();
		return this.scheduler.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
	}

	ScheduledFuture<?> after(long delayNanos, Runnable task) {
		return this.scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
	}

	void execute(Runnable task) {
		this.scheduler.execute(task);
	}

	/**
	 * Number of scheduled renewal and expiry tasks (one per live lease).
	 * @return the number of scheduled tasks
	 */
	public int scheduledTasks() {
		return this.scheduler.getQueue().size();
	}

	/**
	 * Stops renewing. Leases still held then end with their backend lease.
	 */
	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
