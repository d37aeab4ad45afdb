package dev.distlock.jdbc;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * Cleans up in the background after calls whose outcome the database never told: an
 * acquisition that failed without an answer (its statement may still arrive, when the
 * network heals, and grant the lock to nobody: a late grant) and a release that got none.
 * Each is remembered by its lock and owner token and released with that token (the
 * owner-checked {@code abandon} statement, which never touches a later holder's rows) on
 * one daemon thread, oldest first. While the database does not answer, the thread retries
 * the oldest with capped backoff instead of piling calls onto a dead network, so the
 * cleanups run as soon as it answers again. A cleanup is dropped after
 * {@link #HORIZON_MINUTES} minutes (a request held longer by the network is given up by
 * TCP), and the oldest when more than {@link #MAX_PENDING} wait; their rows then free
 * themselves when their leases end.
 */
final class OwnerCleanup implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(OwnerCleanup.class);

	static final int MAX_PENDING = 10_000;

	static final long HORIZON_MINUTES = 15;

	private static final long MAX_BACKOFF_MILLIS = 2000;

	private final Cleaner cleaner;

	private final String tableName;

	private final Deque<Pending> pending = new ArrayDeque<>();

	private @Nullable Thread thread;

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
		if (this.thread == null) {
			Thread started = new Thread(this::run, "distlock-jdbc-cleanup-" + this.tableName);
			started.setDaemon(true);
			this.thread = started;
			started.start();
		}
		notifyAll();
	}

	/**
	 * Cleanups not done yet.
	 * @return the number waiting
	 */
	synchronized int pending() {
		return this.pending.size();
	}

	private void run() {
		long backoff = 50;
		while (true) {
			Pending next;
			synchronized (this) {
				while (this.pending.isEmpty() && !this.closed) {
					try {
						wait();
					}
					catch (InterruptedException ex) {
						return;
					}
				}
				if (this.closed) {
					return;
				}
				next = this.pending.peekFirst();
			}
			if (System.nanoTime() - next.since() > TimeUnit.MINUTES.toNanos(HORIZON_MINUTES)) {
				done(next);
				continue;
			}
			try {
				this.cleaner.clean(next.target(), next.owner());
				done(next);
				backoff = 50;
			}
			catch (DataAccessException ex) {
				logger.debug("Cleanup of " + next.target().storedKey() + " failed; retrying in " + backoff + " ms", ex);
				if (!sleep(backoff)) {
					return;
				}
				backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
			}
		}
	}

	private synchronized void done(Pending cleaned) {
		this.pending.remove(cleaned);
	}

	private synchronized boolean sleep(long millis) {
		try {
			long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
			for (long left = millis; left > 0
					&& !this.closed; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
				wait(left);
			}
			return !this.closed;
		}
		catch (InterruptedException ex) {
			return false;
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		notifyAll();
	}

	private record Pending(LockTarget target, String owner, long since) {
	}

}
