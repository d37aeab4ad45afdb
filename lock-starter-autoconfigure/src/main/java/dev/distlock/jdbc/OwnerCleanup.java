package dev.distlock.jdbc;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.support.SharedTimer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * Cleans up in the background after calls whose outcome the database never told: an
 * acquisition that failed without an answer (its statement may still arrive, when the
 * network heals, and grant the lock to nobody: a late grant) and a release that got none.
 * Each is remembered by its lock and owner token and released with that token (the
 * owner-checked {@code abandon} statement, which never touches a later holder's rows) one
 * at a time, oldest first. While the database does not answer, the oldest is retried with
 * capped backoff instead of piling calls onto a dead network, so the cleanups run as soon
 * as it answers again. No thread of its own: the cleanups run on one of the backend's
 * shared io threads ({@code distlock-jdbc-io}) until none is left or one fails, and a
 * retry is a task on distlock's timer ({@code distlock-timer}, {@link SharedTimer}) that
 * hands the next attempt to an io thread again; closing cancels it. A cleanup is dropped
 * after {@link #HORIZON_MINUTES} minutes (a request held longer by the network is given
 * up by TCP), and the oldest when more than {@link #MAX_PENDING} wait; their rows then
 * free themselves when their leases end.
 */
final class OwnerCleanup implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(OwnerCleanup.class);

	static final int MAX_PENDING = 10_000;

	static final long HORIZON_MINUTES = 15;

	private static final long MIN_BACKOFF_MILLIS = 50;

	private static final long MAX_BACKOFF_MILLIS = 2000;

	private final Cleaner cleaner;

	private final String tableName;

	private final Deque<Pending> pending = new ArrayDeque<>();

	/** Whether cleanups run on an io thread or a retry is scheduled. */
	private boolean active;

	private @Nullable Future<?> retry;

	private long backoff = MIN_BACKOFF_MILLIS;

	private boolean closed;

	OwnerCleanup(Cleaner cleaner, String tableName) {
		this.cleaner = cleaner;
		this.tableName = tableName;
	}

	/** Releases everything an owner holds on a lock, by its deadline. */
	@FunctionalInterface
	interface Cleaner {

		/**
		 * Cleans up.
		 * @param target the lock
		 * @param owner the owner token
		 * @throws DataAccessException if the database failed or did not answer
		 */
		void clean(LockTarget target, String owner);

	}

	/**
	 * Remembers a lock the owner may hold without knowing it, to be released as soon as
	 * the database answers.
	 * @param target the lock
	 * @param owner the owner token
	 */
	synchronized void add(LockTarget target, String owner) {
		if (this.closed) {
			return;
		}
		if (this.pending.size() >= MAX_PENDING) {
			Pending dropped = this.pending.removeFirst();
			logger.warn("distlock keeps at most " + MAX_PENDING + " cleanups of " + this.tableName + "; "
					+ dropped.target().storedKey() + " frees itself when its lease ends");
		}
		this.pending.addLast(new Pending(target, owner, System.nanoTime()));
		if (!this.active) {
			this.active = true;
			JdbcThreads.io().execute(this::run);
		}
	}

	/**
	 * Cleanups not done yet.
	 * @return the number waiting
	 */
	synchronized int pending() {
		return this.pending.size();
	}

	/**
	 * The last retry scheduled on the timer; for tests.
	 * @return the retry, or {@code null} if none was needed
	 */
	synchronized @Nullable Future<?> retry() {
		return this.retry;
	}

	/**
	 * On an io thread: cleans up, the oldest first, until none is left, or schedules a
	 * retry of the oldest after the backoff when it fails.
	 */
	private void run() {
		while (true) {
			Pending next;
			synchronized (this) {
				next = this.pending.peekFirst();
				if (next == null || this.closed) {
					this.active = false;
					return;
				}
			}
			if (System.nanoTime() - next.since() > TimeUnit.MINUTES.toNanos(HORIZON_MINUTES)) {
				done(next);
				continue;
			}
			try {
				this.cleaner.clean(next.target(), next.owner());
				cleaned(next);
			}
			catch (DataAccessException ex) {
				retryLater(next, ex);
				return;
			}
		}
	}

	private synchronized void done(Pending dropped) {
		this.pending.remove(dropped);
	}

	private synchronized void cleaned(Pending cleaned) {
		this.pending.remove(cleaned);
		this.backoff = MIN_BACKOFF_MILLIS;
	}

	private synchronized void retryLater(Pending failed, DataAccessException ex) {
		if (this.closed) {
			this.active = false;
			return;
		}
		logger.debug("Cleanup of " + failed.target().storedKey() + " failed; retrying in " + this.backoff + " ms", ex);
		this.retry = SharedTimer.schedule(() -> JdbcThreads.io().execute(this::run), this.backoff,
				TimeUnit.MILLISECONDS);
		this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MILLIS);
	}

	/**
	 * Gives up the cleanups still waiting and cancels a scheduled retry; a cleanup under
	 * way ends by itself.
	 */
	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.retry != null) {
			this.retry.cancel(false);
		}
	}

	private record Pending(LockTarget target, String owner, long since) {
	}

}
