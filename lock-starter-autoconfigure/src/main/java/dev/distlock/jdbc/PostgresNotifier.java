package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * PostgreSQL release notifications for one provider: one connection of its own, outside
 * any pool, that LISTENs on the table's channel (every read on it bounded by the call
 * timeout), and one daemon thread that waits for notifications and wakes the subscribers
 * of the lock each one names (the payload is the lock's kind and stored key). Releases
 * send {@code pg_notify} in the releasing statement, so a notification arrives only once
 * the release committed. While the connection is down, subscriptions report themselves
 * inactive (waiters poll) and the thread reconnects with backoff; after reconnecting it
 * wakes every subscriber, since releases in between were missed.
 */
final class PostgresNotifier implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PostgresNotifier.class);

	/**
	 * How long a first subscriber waits for LISTEN to be in place before falling back to
	 * polling.
	 */
	private static final long START_TIMEOUT_MILLIS = 2000;

	/**
	 * Longest silence before the connection is checked: a dead peer may otherwise go
	 * unnoticed.
	 */
	private static final int IDLE_CHECK_MILLIS = 10_000;

	private final ConnectionSource connections;

	private final String channel;

	private final int callTimeoutMillis;

	private final Map<String, Set<Runnable>> subscribers = new ConcurrentHashMap<>();

	private final Object monitor = new Object();

	private final CountDownLatch firstListen = new CountDownLatch(1);

	private volatile boolean listening;

	private volatile boolean closed;

	private volatile @Nullable Connection connection;

	private @Nullable Thread thread;

	PostgresNotifier(ConnectionSource connections, String channel, Duration callTimeout) {
		this.connections = connections;
		this.channel = channel;
		this.callTimeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, callTimeout.toMillis()));
	}

	/** Opens the listening connection. */
	@FunctionalInterface
	interface ConnectionSource {

		Connection open() throws SQLException;

	}

	String channel() {
		return this.channel;
	}

	boolean isListening() {
		return this.listening;
	}

	/**
	 * Adds a listener for a payload, starting the listening thread on first use.
	 * @param payload the payload releases of the lock notify
	 * @param listener what to wake
	 * @param deadlineNanos the latest moment to return, however long the first LISTEN
	 * takes
	 * @return the subscription, active while listening
	 * @throws InterruptedException if interrupted while waiting for the first LISTEN
	 */
	ReleaseSubscription subscribe(String payload, Runnable listener, long deadlineNanos) throws InterruptedException {
		// added inside compute: a set fetched first could be dropped by its last listener
		// leaving before the add
		this.subscribers.compute(payload, (k, set) -> {
			Set<Runnable> listeners = (set != null) ? set : ConcurrentHashMap.newKeySet();
			listeners.add(listener);
			return listeners;
		});
		start();
		long wait = Math.min(TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS), deadlineNanos - System.nanoTime());
		if (wait > 0) {
			this.firstListen.await(wait, TimeUnit.NANOSECONDS);
		}
		boolean active = this.listening;
		return new ReleaseSubscription() {

			@Override
			public boolean isActive() {
				return active;
			}

			@Override
			public void close() {
				PostgresNotifier.this.subscribers.computeIfPresent(payload, (k, set) -> {
					set.remove(listener);
					return set.isEmpty() ? null : set;
				});
			}

		};
	}

	private void start() {
		synchronized (this.monitor) {
			if (this.thread == null && !this.closed) {
				Thread started = new Thread(this::run, "distlock-pg-listener-" + this.channel);
				started.setDaemon(true);
				this.thread = started;
				started.start();
			}
		}
	}

	private void run() {
		long backoff = 100;
		boolean reconnecting = false;
		while (!this.closed) {
			try (Connection open = this.connections.open()) {
				this.connection = open;
				// a peer gone silent fails the LISTEN or the idle check by the call
				// timeout, and the thread reconnects
				int own = open.getNetworkTimeout();
				if (own == 0 || own > this.callTimeoutMillis) {
					open.setNetworkTimeout(BoundedConnections.timeoutExecutor(), this.callTimeoutMillis);
				}
				try (Statement statement = open.createStatement()) {
					// the channel is derived from the validated table name: letters,
					// digits, '_' and '.'
					statement.execute("LISTEN \"" + this.channel + "\"");
				}
				if (!open.getAutoCommit()) {
					open.commit();
				}
				this.listening = true;
				this.firstListen.countDown();
				backoff = 100;
				if (reconnecting) {
					// releases while the connection was down were missed
					wakeAll();
				}
				listen(open.unwrap(PGConnection.class), open);
			}
			catch (SQLException | RuntimeException ex) {
				this.listening = false;
				reconnecting = true;
				if (this.closed) {
					break;
				}
				logger.warn("distlock's PostgreSQL listener lost its connection (" + ex.getMessage()
						+ "); waiters poll until it reconnects in " + backoff + " ms");
				wakeAll();
				try {
					Thread.sleep(backoff);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					break;
				}
				backoff = Math.min(backoff * 2, 5000);
			}
			finally {
				this.connection = null;
				this.listening = false;
			}
		}
	}

	private void listen(PGConnection pg, Connection open) throws SQLException {
		long silentSince = System.nanoTime();
		while (!this.closed) {
			PGNotification[] notifications = pg.getNotifications(500);
			if (notifications != null && notifications.length > 0) {
				silentSince = System.nanoTime();
				for (PGNotification notification : notifications) {
					dispatch(notification.getParameter());
				}
			}
			else if (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentSince) > IDLE_CHECK_MILLIS) {
				try (Statement statement = open.createStatement()) {
					statement.execute("SELECT 1");
				}
				silentSince = System.nanoTime();
			}
		}
	}

	void dispatch(String payload) {
		Set<Runnable> listeners = this.subscribers.get(payload);
		if (listeners != null) {
			listeners.forEach(PostgresNotifier::runQuietly);
		}
	}

	private void wakeAll() {
		this.subscribers.values().forEach((listeners) -> listeners.forEach(PostgresNotifier::runQuietly));
	}

	private static void runQuietly(Runnable listener) {
		try {
			listener.run();
		}
		catch (RuntimeException ex) {
			logger.debug("Release listener failed", ex);
		}
	}

	@Override
	public void close() {
		Thread running;
		synchronized (this.monitor) {
			this.closed = true;
			running = this.thread;
		}
		Connection open = this.connection;
		if (open != null) {
			try {
				open.close();
			}
			catch (SQLException ex) {
				logger.debug("Closing the listening connection failed", ex);
			}
		}
		if (running != null) {
			running.interrupt();
			try {
				running.join(2000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
