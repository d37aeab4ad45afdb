package dev.distlock.jdbc;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.core.spi.TryOnceLockProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * One acquisition's attempts, as the core's wait loop drives them while
 * {@link JdbcLockProvider#acquire(LockAttempt, LockWaiter)} runs: each bounded by the
 * acquisition's {@link LockWaitBudget} and every call by the attempt's
 * {@linkplain LockAttempt#deadlineNanos() call deadline}, each outcome read (granted,
 * busy, contention counted as busy, a broken connection cleaned up by owner while the
 * call deadline allows, else left to the background cleanup), and what they may have left
 * in the database remembered, so that the cleanup after a failed acquisition runs only
 * where there is something to clean.
 */
final class BoundedAcquisition implements TryOnceLockProvider<JdbcHeldLock> {

	private static final Log logger = LogFactory.getLog(BoundedAcquisition.class);

	private final JdbcLockProvider provider;

	private final LockWaitBudget budget;

	/** Whether any attempt got a connection, so may have left a FAIR ticket. */
	private boolean reachedDatabase;

	/**
	 * Whether an attempt's outcome is unknown and its cleanup failed while the database
	 * answered.
	 */
	private boolean unresolved;

	/**
	 * This acquisition's registration for release notifications, once it waits for them.
	 */
	private @Nullable WaiterRegistration registration;

	BoundedAcquisition(JdbcLockProvider provider, LockWaitBudget budget) {
		this.provider = provider;
		this.budget = budget;
	}

	/**
	 * What a failed attempt means: busy when the database rolled it back because another
	 * attempt won; busy as well when its connection broke and the cleanup by owner token
	 * succeeded by the call deadline, since nothing is held then; else the error, and the
	 * outcome stays unknown for {@link JdbcLockProvider#abandon} to clear up in the
	 * background (a statement that got no answer may still reach the database and grant
	 * the lock).
	 * @param attempt the attempt
	 * @param target its lock
	 * @param ex the translated error
	 * @return busy
	 * @throws DataAccessException if the attempt failed otherwise, or its outcome could
	 * not be cleared up
	 */
	private AttemptOutcome<JdbcHeldLock> failed(LockAttempt attempt, LockTarget target, DataAccessException ex) {
		if (SqlFailures.isContention(ex)) {
			this.provider.countContention();
			if (logger.isTraceEnabled()) {
				logger.trace("Contention on " + attempt + ", counted as busy: " + ex);
			}
			return AttemptOutcome.busy();
		}
		if (!SqlFailures.isBrokenConnection(ex)) {
			throw ex;
		}
		if (attempt.deadlineNanos() - System.nanoTime() <= 0) {
			// no answer by the call deadline (a silent network): the caller must not wait
			// for a cleanup too
			this.unresolved = true;
			throw ex;
		}
		try {
			this.provider.abandonOrThrow(target, attempt.owner(), attempt.deadlineNanos());
		}
		catch (DataAccessException cleanup) {
			this.unresolved = true;
			ex.addSuppressed(cleanup);
			throw ex;
		}
		logger.debug("Connection lost during " + attempt + "; counted as busy after cleaning up", ex);
		return AttemptOutcome.busy();
	}

	@Override
	public String name() {
		return this.provider.name();
	}

	@Override
	public Set<LockType> supportedTypes() {
		return this.provider.supportedTypes();
	}

	/**
	 * Runs the core's wait loop over this acquisition's attempts; when it ends without a
	 * lock, tells the provider whether there is anything to clean up.
	 * @param waiter the core's wait loop
	 * @param attempt what to acquire
	 * @return the lock, or {@code null} when the deadline passed
	 * @throws Exception if an attempt failed
	 */
	@Nullable JdbcHeldLock await(LockWaiter waiter, LockAttempt attempt) throws Exception {
		JdbcHeldLock held;
		try {
			held = waiter.await(this, attempt);
		}
		catch (Exception ex) {
			settleIfNothingHeld(attempt);
			throw ex;
		}
		if (held == null) {
			settleIfNothingHeld(attempt);
		}
		return held;
	}

	private void settleIfNothingHeld(LockAttempt attempt) {
		// busy and failed attempts roll back, except for a FAIR waiter's ticket and an
		// outcome left unknown
		if (!this.unresolved && !(attempt.type() == LockType.FAIR && this.reachedDatabase)) {
			this.provider.settle(attempt);
		}
	}

	@Override
	public AttemptOutcome<JdbcHeldLock> tryAcquire(LockAttempt attempt) {
		LockTarget target = this.provider.target(attempt);
		Map<String, Object> parameters = target.parameters(attempt.owner());
		parameters.put("lease", LockTarget.micros(attempt.lease()));
		parameters.put("permits", attempt.permits());
		WaiterRegistration registered = this.registration;
		boolean leaving = registered != null && registered.isRegistered();
		parameters.put("leave", leaving ? 1 : 0);
		OperationResult result;
		try {
			result = this.provider.run(LockTarget.acquireOperation(attempt.type()), parameters, this.budget,
					attempt.deadlineNanos());
			this.reachedDatabase = true;
		}
		catch (CannotGetJdbcConnectionException ex) {
			// nothing was sent: nothing to clean up, and no point in asking the pool
			// again
			throw ex;
		}
		catch (DataAccessException ex) {
			this.reachedDatabase = true;
			return failed(attempt, target, ex);
		}
		if (result.token() != null) {
			if (leaving) {
				registered.leftWithGrant();
			}
			long token = result.token();
			long slot = (attempt.type() == LockType.READ || attempt.type() == LockType.SEMAPHORE) ? token : 0;
			return AttemptOutcome.acquired(new JdbcHeldLock(attempt.key(), target, slot, attempt.owner(), token));
		}
		Long waitMillis = result.waitMillis();
		return AttemptOutcome.busy((waitMillis != null && waitMillis > 0) ? Duration.ofMillis(waitMillis) : null);
	}

	/**
	 * Listens and registers as a waiter for the rest of the wait; the attempt that is
	 * granted leaves the registry in its own statement, so a waiter that gets the lock
	 * costs no round trip to leave.
	 */
	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Duration waitLeft, Runnable listener) throws Exception {
		ReleaseSubscription subscription = this.provider.notifications()
			.subscribe(this.provider.target(attempt), waitLeft, listener, this.budget, attempt.deadlineNanos());
		if (subscription instanceof WaiterRegistration waiter) {
			this.registration = waiter;
		}
		return subscription;
	}

	@Override
	public boolean renew(JdbcHeldLock lock, Duration lease) {
		return this.provider.renew(lock, lease);
	}

	@Override
	public void release(JdbcHeldLock lock) {
		this.provider.release(lock);
	}

}
