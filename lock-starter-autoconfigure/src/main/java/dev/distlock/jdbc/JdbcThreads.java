package dev.distlock.jdbc;

import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.support.SharedTimer;

/**
 * The JDBC backend's own threads, shared by every provider and table, so that holding
 * locks costs no thread per provider: io threads, {@code distlock-jdbc-io}, a cached
 * pool, for the work that waits for a database. They run each provider's background lane
 * ({@link BackgroundLane}: its watchdog renewals and sweep runs, one at a time), the
 * hand-over borrows of calls bounded by a deadline, and cleanups. An idle one ends after
 * {@value #IO_KEEP_ALIVE_SECONDS} s: a burst of concurrent acquisitions (a borrow each)
 * leaves threads that end soon after it, while steady traffic keeps reusing the most
 * recently idle thread; making a thread anew after a quiet spell costs a fraction of a
 * round trip to the database.
 * <p>
 * Timed work (the return of idle warm connections to their pools, each provider's sweep
 * ticks, cleanup retries) is scheduled on distlock's one timer thread
 * ({@link SharedTimer}, {@code distlock-timer}), which the core's lease clock uses too; a
 * task there never waits for a database: it hands its work to an io thread. PostgreSQL's
 * listening connection keeps a thread of its own ({@link PostgresNotifier}): it blocks on
 * the socket.
 */
final class JdbcThreads {

	/** How long an idle io thread waits for work before it ends. */
	static final long IO_KEEP_ALIVE_SECONDS = 3;

	private static final ThreadPoolExecutor IO = new ThreadPoolExecutor(0, Integer.MAX_VALUE, IO_KEEP_ALIVE_SECONDS,
			TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
				Thread thread = new Thread(task, "distlock-jdbc-io");
				thread.setDaemon(true);
				return thread;
			});

	private JdbcThreads() {
	}

	/**
	 * The io threads: for work that waits for a database, and for
	 * {@link java.sql.Connection#setNetworkTimeout}.
	 * @return the executor; it never rejects
	 */
	static Executor io() {
		return IO;
	}

}
