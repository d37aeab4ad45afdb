package dev.distlock.jdbc;

import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The JDBC backend's own threads, shared by every provider and table, so that holding
 * locks costs no thread per provider:
 * <ul>
 * <li>one timer thread, {@code distlock-jdbc-timer}, that only schedules: the return of
 * idle warm connections to their pools ({@link BoundedConnections}), each provider's
 * sweep ticks ({@link LockTableSweeper}) and cleanup retries ({@link OwnerCleanup}). It
 * never waits for a database: a tick hands its work to the io threads, so a sweep that
 * waits out a silent network cannot delay warm connections going back to the pool. It
 * ends {@value #TIMER_KEEP_ALIVE_SECONDS} s after nothing is scheduled any more (a
 * provider with a background sweep keeps it);</li>
 * <li>io threads, {@code distlock-jdbc-io}, a cached pool: the hand-over borrows of calls
 * bounded by a deadline, sweep runs and cleanups. An idle one ends after
 * {@value #IO_KEEP_ALIVE_SECONDS} s: a burst of concurrent acquisitions (a borrow each)
 * leaves threads that end soon after it, while steady traffic keeps reusing the most
 * recently idle thread; making a thread anew after a quiet spell costs a fraction of a
 * round trip to the database.</li>
 * </ul>
 * PostgreSQL's listening connection keeps a thread of its own ({@link PostgresNotifier}):
 * it blocks on the socket.
 */
final class JdbcThreads {

	/** How long the timer thread outlives its last scheduled task. */
	static final long TIMER_KEEP_ALIVE_SECONDS = 10;

	/** How long an idle io thread waits for work before it ends. */
	static final long IO_KEEP_ALIVE_SECONDS = 3;

	private static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1,
			daemon("distlock-jdbc-timer"));

	private static final ThreadPoolExecutor IO = new ThreadPoolExecutor(0, Integer.MAX_VALUE, IO_KEEP_ALIVE_SECONDS,
			TimeUnit.SECONDS, new SynchronousQueue<>(), daemon("distlock-jdbc-io"));

	static {
		TIMER.setRemoveOnCancelPolicy(true);
		TIMER.setKeepAliveTime(TIMER_KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
		TIMER.allowCoreThreadTimeOut(true);
	}

	private JdbcThreads() {
	}

	private static ThreadFactory daemon(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * Runs a task once on the timer thread after a delay; the task must not block.
	 * @param task the task
	 * @param delay the delay
	 * @param unit the delay's unit
	 * @return the scheduled task, to cancel (which unschedules it)
	 */
	static ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		return TIMER.schedule(task, delay, unit);
	}

	/**
	 * Runs a task on the timer thread every period, the first time after a delay; the
	 * task must not block.
	 * @param task the task
	 * @param delay the first delay
	 * @param period the delay between the end of one run and the start of the next
	 * @param unit the unit of both
	 * @return the scheduled task, to cancel (which unschedules it)
	 */
	static ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long delay, long period, TimeUnit unit) {
		return TIMER.scheduleWithFixedDelay(task, delay, period, unit);
	}

	/**
	 * The io threads: for work that waits for a database, and for
	 * {@link java.sql.Connection#setNetworkTimeout}.
	 * @return the executor; it never rejects
	 */
	static Executor io() {
		return IO;
	}

	/**
	 * Whether a task is still scheduled on the timer (a cancelled one no longer is); for
	 * tests.
	 * @param task the task
	 * @return whether the timer still holds it
	 */
	static boolean scheduled(Future<?> task) {
		return TIMER.getQueue().contains(task);
	}

}
