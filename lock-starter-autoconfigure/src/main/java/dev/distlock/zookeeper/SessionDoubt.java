package dev.distlock.zookeeper;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.jspecify.annotations.Nullable;

/**
 * What a provider's held locks are worth while the connection to ZooKeeper is in doubt.
 * SUSPENDED puts every lease in doubt: if the connection is not back while the servers
 * certainly still keep the session (a session timeout after the last request they
 * answered, at least a third of it after the loss), the leases are reported lost; a
 * leader election, which keeps the session, usually ends well within that. LOST (session
 * expired) reports them lost at once. Every change wakes the waiters, so each re-reads
 * its queue. The work runs on one daemon thread of its own, never on the client's event
 * thread.
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
		 */
		void loseAll(String reason, boolean sessionGone);

		/** Wakes every waiter to re-read its queue. */
		void wakeWaiters();

	}

	private final CuratorFramework client;

	private final Holds holds;

	private final ScheduledThreadPoolExecutor scheduler;

	/**
	 * Send time of the last request the servers answered; far in the past until there is
	 * one.
	 */
	private volatile long lastConfirmedNanos = System.nanoTime() - Long.MAX_VALUE / 4;

	private volatile @Nullable ScheduledFuture<?> doubt;

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
		this.scheduler.shutdownNow();
	}

}
