package dev.distlock.core.support;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * distlock's one timer thread, {@code distlock-timer}, shared by the core and every
 * backend of the process: the core's lease clock ticks on it while leases are watched,
 * and backends schedule their own timed work on it (the JDBC backend's sweep ticks and
 * the return of its idle warm connections), so that timing costs one thread however many
 * templates, providers and tables a process has. The thread ends
 * {@value #KEEP_ALIVE_SECONDS} s after nothing is scheduled any more.
 * <p>
 * A task must not block and should return within a millisecond or so: every other task of
 * the process, the lease clock's included, waits while it runs. Work that waits for a
 * server belongs on a thread of the backend's own, which the task hands it to. A task
 * that throws is logged, and a periodic one keeps its schedule.
 *
 * @since 0.6.0
 */
public final class SharedTimer {

	private static final Log logger = LogFactory.getLog(SharedTimer.class);

	/** How long the timer thread outlives its last scheduled task. */
	public static final long KEEP_ALIVE_SECONDS = 10;

	private static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1, (task) -> {
		Thread thread = new Thread(task, "distlock-timer");
		thread.setDaemon(true);
		return thread;
	});

	static {
		TIMER.setRemoveOnCancelPolicy(true);
		TIMER.setKeepAliveTime(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
		TIMER.allowCoreThreadTimeOut(true);
	}

	private SharedTimer() {
	}

	/**
	 * Runs a task once after a delay.
	 * @param task the task; it must not block
	 * @param delay the delay
	 * @param unit the delay's unit
	 * @return the scheduled task, to cancel (which unschedules it)
	 */
	public static ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		return TIMER.schedule(logged(task), delay, unit);
	}

	/**
	 * Runs a task every period, the first time after a delay, until it is cancelled.
	 * @param task the task; it must not block
	 * @param delay the first delay
	 * @param period the delay between the end of one run and the start of the next
	 * @param unit the unit of both
	 * @return the scheduled task, to cancel (which unschedules it)
	 */
	public static ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long delay, long period, TimeUnit unit) {
		return TIMER.scheduleWithFixedDelay(logged(task), delay, period, unit);
	}

	/**
	 * Whether a task is still scheduled (a cancelled one no longer is); for tests and
	 * diagnostics.
	 * @param task a task this timer returned
	 * @return whether the timer still holds it
	 */
	public static boolean isScheduled(Future<?> task) {
		return TIMER.getQueue().contains(task);
	}

	private static Runnable logged(Runnable task) {
		return () -> {
			try {
				task.run();
			}
			catch (RuntimeException ex) {
				logger.warn("A task on distlock's timer failed", ex);
			}
		};
	}

}
