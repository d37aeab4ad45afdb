package dev.distlock.jdbc;

import java.time.Duration;

import dev.distlock.core.spi.ReleaseSubscription;
import org.jspecify.annotations.Nullable;

/**
 * A provider's release notifications: on PostgreSQL the table's channel, which releases
 * notify whenever waiters are registered (also from a provider that does not listen
 * itself), and, unless notifications are turned off, the listening connection
 * ({@link PostgresNotifier}) with the registration of each waiter
 * ({@link WaiterRegistration}); elsewhere nothing, and waiters poll.
 */
final class ReleaseNotifications implements AutoCloseable {

	private final JdbcLockProvider provider;

	private final String channel;

	private final @Nullable PostgresNotifier notifier;

	ReleaseNotifications(JdbcLockProvider provider, JdbcDialect dialect, String tableName,
			PostgresNotifier.@Nullable ConnectionSource listenerConnections, Duration callTimeout) {
		this.provider = provider;
		this.channel = dialect.notifies() ? StoredKeys.channel(tableName) : "";
		this.notifier = (listenerConnections != null)
				? new PostgresNotifier(listenerConnections, this.channel, callTimeout) : null;
	}

	/**
	 * The channel releases notify on, or empty where there are no notifications.
	 * @return the channel
	 */
	String channel() {
		return this.channel;
	}

	/**
	 * Listens for the lock's releases and registers the waiter, so that they notify.
	 * @param target the lock
	 * @param waitLeft how long the waiter waits at most
	 * @param listener called on a release
	 * @param budget how long the registration may wait for the lock's head row
	 * @param deadlineNanos when the registration (and, later, leaving the registry) must
	 * have returned
	 * @return the subscription: inactive when the waiter has to poll (not listening, or
	 * not registered)
	 * @throws InterruptedException if interrupted while the listening connection was
	 * being opened
	 */
	ReleaseSubscription subscribe(LockTarget target, Duration waitLeft, Runnable listener, LockWaitBudget budget,
			long deadlineNanos) throws InterruptedException {
		PostgresNotifier current = this.notifier;
		if (current == null) {
			return ReleaseSubscription.NONE;
		}
		// registered even while the listening connection is down: once it is back,
		// releases reach the listener
		ReleaseSubscription listening = current.subscribe(target.payload(), listener, deadlineNanos);
		return WaiterRegistration.register(this.provider, target, waitLeft, listening, budget, deadlineNanos);
	}

	@Override
	public void close() {
		if (this.notifier != null) {
			this.notifier.close();
		}
	}

}
