package dev.distlock.jdbc;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;

/**
 * A PostgreSQL waiter's release subscription: its listener on the provider's LISTEN
 * connection, and its registration on the lock's head row ({@code waiters + 1},
 * {@code waiters_until} pushed to the end of its wait), without which releases of that
 * lock send no {@code pg_notify}. The registration ends with the grant that a registered
 * attempt receives (the granting statement leaves the registry, {@code :leave = 1}), else
 * when the subscription is closed ({@code leave-waiter}), else, for a waiter that
 * crashed, when its wait (plus {@link #SLACK}) has passed. A waiter that could not
 * register, or does not listen yet, polls: its subscription reports itself inactive.
 */
final class WaiterRegistration implements ReleaseSubscription {

	private static final Log logger = LogFactory.getLog(WaiterRegistration.class);

	/**
	 * How long a registration outlives the wait it was made for, so that a waiter leaving
	 * at its deadline never takes away the count of one that registered after the first
	 * one's registration lapsed.
	 */
	static final Duration SLACK = Duration.ofSeconds(1);

	private final JdbcLockProvider provider;

	private final LockTarget target;

	private final ReleaseSubscription listening;

	private final AtomicBoolean registered;

	private final boolean active;

	private final long deadlineNanos;

	private WaiterRegistration(JdbcLockProvider provider, LockTarget target, ReleaseSubscription listening,
			boolean registered, long deadlineNanos) {
		this.provider = provider;
		this.deadlineNanos = deadlineNanos;
		this.target = target;
		this.listening = listening;
		this.registered = new AtomicBoolean(registered);
		this.active = registered && listening.isActive();
	}

	/**
	 * Registers a waiter.
	 * @param provider runs the statements
	 * @param target the lock
	 * @param waitLeft how long the waiter waits at most
	 * @param listening the listener's subscription
	 * @param budget how long the registration may wait for the head row's lock
	 * @param deadlineNanos when registering, and later leaving, must have returned (the
	 * acquisition's call deadline)
	 * @return the subscription: active if registered and listening, else inactive (the
	 * waiter polls)
	 */
	static WaiterRegistration register(JdbcLockProvider provider, LockTarget target, Duration waitLeft,
			ReleaseSubscription listening, LockWaitBudget budget, long deadlineNanos) {
		Map<String, Object> parameters = target.parameters("");
		parameters.put("waitLeft", LockTarget.micros(waitLeft.plus(SLACK)));
		try {
			provider.run("register-waiter", parameters, budget, deadlineNanos);
			return new WaiterRegistration(provider, target, listening, true, deadlineNanos);
		}
		catch (DataAccessException ex) {
			logger.debug("Could not register a waiter of " + target.storedKey() + "; it polls", ex);
			return new WaiterRegistration(provider, target, listening, false, deadlineNanos);
		}
	}

	@Override
	public boolean isActive() {
		return this.active;
	}

	/**
	 * Whether the next attempt should leave the registry if it is granted.
	 * @return {@code true} while registered
	 */
	boolean isRegistered() {
		return this.registered.get();
	}

	/** The attempt made while registered was granted: its statement left the registry. */
	void leftWithGrant() {
		this.registered.set(false);
	}

	@Override
	public void close() {
		this.listening.close();
		// past the call deadline the caller must not wait for this: the registration
		// lapses with its wait
		if (this.registered.compareAndSet(true, false) && this.deadlineNanos - System.nanoTime() > 0) {
			try {
				this.provider.run("leave-waiter", this.target.parameters(""), this.provider.minimumBudget(),
						this.deadlineNanos);
			}
			catch (DataAccessException ex) {
				logger.debug("Could not leave the waiters of " + this.target.storedKey()
						+ "; the registration lapses with its wait", ex);
			}
		}
	}

}
