package dev.distlock.core.spi;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A thin backend: it supplies one atomic attempt ({@link #tryAcquire}) and, optionally, a
 * release notification ({@link #subscribe}); the core's wait loop
 * ({@link LockWaiter#await}) does the waiting: attempt, subscribe, re-attempt, sleep
 * until notified, until the holder's lease ends or for a capped jittered backoff, until
 * the deadline. Redis, JDBC and the in-JVM backend are of this kind.
 *
 * @param <H> the backend's handle on a granted lock
 * @since 0.1.0
 */
public interface TryOnceLockProvider<H extends HeldLock> extends LockProvider<H> {

	/**
	 * One acquire attempt, one round trip: grants the lock with a fencing token or
	 * reports it busy, without waiting.
	 * @param attempt what to acquire
	 * @return the outcome
	 * @throws Exception if the backend failed; the outcome is then unknown and the core
	 * calls {@link #abandon(LockAttempt)}
	 */
	AttemptOutcome<H> tryAcquire(LockAttempt attempt) throws Exception;

	/**
	 * Subscribes to release notifications of the attempt's lock. The listener may be
	 * called from any thread, may be called spuriously, and must be cheap. Backends
	 * without notifications keep the default, which makes waiters poll with capped
	 * exponential backoff and jitter.
	 * @param attempt the attempt that waits
	 * @param listener called when the lock may have been freed
	 * @return the subscription
	 * @throws Exception if subscribing failed
	 */
	default ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
		return ReleaseSubscription.NONE;
	}

	/**
	 * Subscribes to release notifications of the attempt's lock for a waiter that waits
	 * at most {@code waitLeft} more. Backends that tell releases apart by whether anybody
	 * waits (Redis publishes a release only while a waiter is registered) override this
	 * one; the default calls {@link #subscribe(LockAttempt, Runnable)}.
	 * @param attempt the attempt that waits
	 * @param waitLeft how long the waiter waits at most
	 * @param listener called when the lock may have been freed
	 * @return the subscription, closed when the waiter leaves
	 * @throws Exception if subscribing failed
	 */
	default ReleaseSubscription subscribe(LockAttempt attempt, Duration waitLeft, Runnable listener) throws Exception {
		return subscribe(attempt, listener);
	}

	@Override
	default @Nullable H acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return waiter.await(this, attempt);
	}

}
