package dev.distlock.zookeeper;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.support.SharedTimer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.jspecify.annotations.Nullable;

/**
 * What a provider's held locks are worth, judged only by what the ZooKeeper leader
 * ordered. A read, a ping or a watch event may come from a follower that lost its leader
 * and keeps answering for up to {@code syncLimit × tickTime}, while the leader expires
 * the session and deletes its nodes; only a write (or a check in a transaction) answered
 * for the session proves that the leader still kept it when the request was sent, and so
 * keeps it at least a session timeout after that ({@link #confirmed(long)}).
 * <p>
 * While locks are held, a tick on the {@link SharedTimer} every eighth of the session
 * timeout sends one such check (of one held node) unless another write confirmed the
 * session within that eighth; when no request sent within the last half of the session
 * timeout was confirmed, the held locks are reported lost, well before the leader can
 * have expired the session and let another client in. SUSPENDED puts every lease in doubt
 * as well: if the connection is not back within a session timeout of the last
 * confirmation (at least a third of it after the loss), the leases are reported lost.
 * LOST (session expired) reports them lost at once. Every connection change wakes the
 * waiters, so each re-reads its queue. The work runs on one daemon thread of its own,
 * never on the client's event thread or the shared timer's.
 */
final class SessionDoubt implements ConnectionStateListener {

	private static final Log logger = LogFactory.getLog(SessionDoubt.class);

	private static final AtomicInteger instances = new AtomicInteger();

	/** What the provider does when the doubt is settled. */
	interface Holds {

		/**
		 * How many locks are held, for the log.
		 * @return the number of held locks
		 */
		int count();

		/**
		 * Ends the held locks.
		 * @param reason what happened
		 * @param sessionGone whether the session certainly ended (its nodes are gone),
		 * rather than only in doubt
		 * @return how many holders were told
		 */
		int loseAll(String reason, boolean sessionGone);

		/** Wakes every waiter to re-read its queue. */
		void wakeWaiters();

		/**
		 * Sends a request that only an answer ordered by the leader completes (a check of
		 * a held node in a transaction), in the background.
		 * @param onAnswer where the answer is handled
		 * @return whether the leader answered it for the live session, or {@code null} if
		 * nothing is held
		 */
		@Nullable CompletionStage<Boolean> confirm(Executor onAnswer) throws Exception;

	}

	/**
	 * How often the held locks' session is checked, as a fraction of the session timeout.
	 */
	private static final int CHECKS_PER_TIMEOUT = 8;

	private final CuratorFramework client;

	private final Holds holds;

	private final ScheduledThreadPoolExecutor scheduler;

	/**
	 * Send time of the last request the servers answered; far in the past until there is
	 * one.
	 */
	private volatile long lastConfirmedNanos = System.nanoTime() - Long.MAX_VALUE / 4;

	private volatile @Nullable ScheduledFuture<?> doubt;

	/**
	 * The next tick of the held locks' check, while locks are held; written under this
	 * object's monitor.
	 */
	private volatile @Nullable ScheduledFuture<?> tick;

	private boolean closed;

	/** Send time of the check in flight, or 0 if none is. */
	private volatile long checkSentNanos;

	SessionDoubt(CuratorFramework client, Holds holds) {
		this.client = client;
		this.holds = holds;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "distlock-zookeeper-" + instances.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		// no thread while there is nothing to do: it starts with the next connection
		// change, and stays while a doubt is pending
		this.scheduler.setKeepAliveTime(10, TimeUnit.SECONDS);
		this.scheduler.allowCoreThreadTimeOut(true);
		this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		client.getConnectionStateListenable().addListener(this);
	}

	/**
	 * Records that the servers answered a request sent at the given time, so they heard
	 * from the session then.
	 * @param sentNanos when the request was sent
	 */
	void confirmed(long sentNanos) {
		// a lost race keeps an older time, which only makes the doubt window end earlier
		if (sentNanos - this.lastConfirmedNanos > 0) {
			this.lastConfirmedNanos = sentNanos;
		}
	}

	/**
	 * Starts checking the session while locks are held; called after a lock is granted.
	 */
	void holding() {
		if (this.tick != null) {
			// already ticking: the tick re-reads the count before it stops
			return;
		}
		synchronized (this) {
			if (this.tick == null && !this.closed) {
				scheduleTick();
			}
		}
	}

	private void scheduleTick() {
		long period = TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMillis()) / CHECKS_PER_TIMEOUT;
		this.tick = SharedTimer.schedule(this::tick, period, TimeUnit.NANOSECONDS);
	}

	/**
	 * One tick of the held locks' check, on the shared timer: it only decides, and hands
	 * whatever may wait to this object's own thread.
	 */
	private void tick() {
		synchronized (this) {
			if (this.closed) {
				this.tick = null;
				return;
			}
			if (this.holds.count() == 0) {
				this.tick = null;
				// a lock granted meanwhile may have seen the old tick and not started
				// one: counted again after the tick is cleared, it is seen here
				if (this.holds.count() == 0) {
					return;
				}
			}
			scheduleTick();
		}
		long timeout = TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMillis());
		long now = System.nanoTime();
		long unconfirmed = now - this.lastConfirmedNanos;
		if (unconfirmed >= timeout / 2) {
			execute(this::loseUnconfirmed);
		}
		else if (unconfirmed >= timeout / CHECKS_PER_TIMEOUT) {
			long inFlight = this.checkSentNanos;
			// one check at a time; one that got no answer in a quarter of the timeout is
			// given up, and another goes out
			if (inFlight == 0 || now - inFlight >= timeout / 4) {
				this.checkSentNanos = now;
				execute(() -> check(now));
			}
		}
	}

	private void check(long sent) {
		CompletionStage<Boolean> answer;
		try {
			answer = this.holds.confirm(this::execute);
		}
		catch (Exception ex) {
			logger.debug("Could not send a check of the ZooKeeper session", ex);
			this.checkSentNanos = 0;
			return;
		}
		if (answer == null) {
			this.checkSentNanos = 0;
			return;
		}
		answer.whenComplete((confirmed, failure) -> {
			if (Boolean.TRUE.equals(confirmed)) {
				confirmed(sent);
			}
			if (this.checkSentNanos == sent) {
				this.checkSentNanos = 0;
			}
		});
	}

	/**
	 * Reports the held locks lost if the session is still unconfirmed for half its
	 * timeout: the leader keeps a session a timeout after it last heard of it, and no
	 * longer.
	 */
	private void loseUnconfirmed() {
		long timeout = TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMillis());
		long unconfirmed = System.nanoTime() - this.lastConfirmedNanos;
		if (unconfirmed < timeout / 2) {
			return;
		}
		int lost = this.holds.loseAll("no answer ordered by the ZooKeeper leader confirmed the session for "
				+ TimeUnit.NANOSECONDS.toMillis(unconfirmed)
				+ " ms, half the session timeout, so the leader may have expired it", false);
		if (lost > 0) {
			logger.warn("No answer ordered by the ZooKeeper leader for " + TimeUnit.NANOSECONDS.toMillis(unconfirmed)
					+ " ms: " + lost + " held lock(s) reported lost");
		}
	}

	/**
	 * Whether the session was confirmed recently enough (within an eighth of its timeout)
	 * that a lock granted now starts with a fresh confirmation.
	 * @return whether the last confirmation is recent
	 */
	boolean isFresh() {
		long timeout = TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMillis());
		return System.nanoTime() - this.lastConfirmedNanos < timeout / CHECKS_PER_TIMEOUT;
	}

	@Override
	public void stateChanged(CuratorFramework source, ConnectionState state) {
		switch (state) {
			case SUSPENDED -> suspended();
			case LOST -> execute(() -> {
				cancelDoubt();
				int held = this.holds.count();
				if (held > 0) {
					logger.warn("ZooKeeper session lost: " + held + " held lock(s) are lost");
				}
				this.holds.loseAll("the ZooKeeper session expired; its nodes, and so the lock, are gone", true);
				this.holds.wakeWaiters();
			});
			case CONNECTED, RECONNECTED -> execute(() -> {
				int held = this.holds.count();
				if (cancelDoubt() && held > 0) {
					logger.info("Reconnected to ZooKeeper; " + held + " held lock(s) kept");
				}
				this.holds.wakeWaiters();
			});
			default -> {
			}
		}
	}

	/**
	 * Puts the held leases in doubt: they stay valid only while the servers cannot have
	 * expired the session yet. The servers expire it a session timeout after they last
	 * heard from it, which was no earlier than the last request they answered, and,
	 * because a client notices a silent connection after two thirds of the timeout, no
	 * earlier than two thirds of it before now.
	 */
	private void suspended() {
		long now = System.nanoTime();
		long timeout = TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMillis());
		long safeUntil = Math.max(this.lastConfirmedNanos + timeout, now + timeout / 3) - timeout / 20;
		long grace = Math.max(0, safeUntil - now);
		int held = this.holds.count();
		if (held > 0) {
			logger.warn("Connection to ZooKeeper suspended: " + held + " held lock(s) in doubt; they are "
					+ "reported lost unless it comes back within " + TimeUnit.NANOSECONDS.toMillis(grace) + " ms");
		}
		try {
			cancelDoubt();
			this.doubt = this.scheduler.schedule(() -> {
				if (!this.client.getZookeeperClient().isConnected()) {
					this.holds
						.loseAll("the connection to ZooKeeper was lost for " + TimeUnit.NANOSECONDS.toMillis(grace)
								+ " ms, long enough for the servers to expire the session", false);
				}
			}, grace, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// closed
		}
	}

	private int sessionTimeoutMillis() {
		int negotiated = this.client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
		return (negotiated > 0) ? negotiated : this.client.getZookeeperClient().getConnectionTimeoutMs();
	}

	private boolean cancelDoubt() {
		ScheduledFuture<?> pending = this.doubt;
		this.doubt = null;
		return pending != null && pending.cancel(false);
	}

	private void execute(Runnable task) {
		try {
			this.scheduler.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// closed
		}
	}

	/** Stops listening; a doubt still pending is dropped. */
	void close() {
		this.client.getConnectionStateListenable().removeListener(this);
		synchronized (this) {
			this.closed = true;
			ScheduledFuture<?> next = this.tick;
			this.tick = null;
			if (next != null) {
				next.cancel(false);
			}
		}
		this.scheduler.shutdownNow();
	}

}
