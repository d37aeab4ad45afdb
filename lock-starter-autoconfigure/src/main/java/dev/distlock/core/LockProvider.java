package dev.distlock.core;

import java.time.Duration;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The backend SPI: one implementation per backend, driven by {@link LockTemplate}. The core owns everything that is
 * not backend-specific: re-entry, local queueing of threads that want the same key, leases and their renewal,
 * lost-lease handling, and (unless a backend overrides {@link #acquire}) the wait loop. A backend supplies:
 * <ul>
 * <li>{@link #tryAcquire(LockAttempt)}: one atomic attempt, one round trip, that grants the lock with a fencing token
 * or reports it busy;</li>
 * <li>{@link #subscribe}: optionally, a release notification so waiters need not poll;</li>
 * <li>{@link #renew} and {@link #release}: owner-only, atomic;</li>
 * <li>{@link #abandon(LockAttempt)}: clean up after an attempt the core gave up on (a reply that was lost, a queue
 * place).</li>
 * </ul>
 * Backends that must own their waiting (a place in a ZooKeeper or fair queue that must be kept between wake-ups)
 * override {@link #acquire(LockAttempt, LockWaiter)} instead and use the waiter only for its deadline.
 * <p>
 * Implementations are thread-safe. Every method may be called from any thread: ownership is the attempt's
 * {@link LockAttempt#owner() owner token}, never the calling thread.
 *
 * @since 0.1.0
 */
public interface LockProvider {

	/**
	 * The name users select this provider by ({@code distlock.provider}, {@code @DistributedLock(provider = ...)}).
	 * @return the name, e.g. {@code redis}
	 */
	String name();

	/**
	 * The lock types this backend implements.
	 * @return the supported types
	 */
	Set<LockType> supportedTypes();

	/**
	 * One acquire attempt: grants the lock or reports it busy, without waiting.
	 * @param attempt what to acquire
	 * @return the outcome
	 * @throws Exception if the backend failed; the outcome is then unknown and the core calls
	 * {@link #abandon(LockAttempt)}
	 */
	Acquisition tryAcquire(LockAttempt attempt) throws Exception;

	/**
	 * Acquires, waiting at most until the waiter's deadline. The default runs the core's wait loop
	 * ({@link LockWaiter#await(LockProvider, LockAttempt)}): attempts, release notifications and capped backoff.
	 * @param attempt what to acquire
	 * @param waiter the deadline and the core's wait loop
	 * @return the granted lock, or {@code null} if the deadline passed
	 * @throws InterruptedException if the waiting thread was interrupted
	 * @throws Exception if the backend failed
	 */
	default @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return waiter.await(this, attempt);
	}

	/**
	 * Subscribes to release notifications of the attempt's lock. The listener may be called from any thread, may be
	 * called spuriously, and must be cheap. Backends without notifications keep the default, which makes waiters poll
	 * with capped exponential backoff and jitter.
	 * @param attempt the attempt that waits
	 * @param listener called when the lock may have been freed
	 * @return the subscription
	 * @throws Exception if subscribing failed
	 */
	default ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
		return ReleaseSubscription.NONE;
	}

	/**
	 * Extends the lease of a held lock to {@code lease} from now, only if the owner still holds it.
	 * @param lock the held lock
	 * @param lease the new lease
	 * @return {@code true} if extended, {@code false} if the owner no longer holds the lock
	 * @throws Exception if the backend failed (the outcome is unknown; the core retries until the lease ends)
	 */
	boolean renew(HeldLock lock, Duration lease) throws Exception;

	/**
	 * Releases a held lock, only if its owner still holds it (a stale owner never frees another's lock), and wakes
	 * waiters. Releasing a lock that is no longer held is a no-op.
	 * @param lock the held lock
	 * @throws Exception if the backend failed
	 */
	void release(HeldLock lock) throws Exception;

	/**
	 * Cleans up after an attempt the core gave up on: the wait timed out, or an attempt failed with an exception so
	 * the lock may have been granted without the reply arriving. Release anything held under the attempt's owner
	 * token and leave any wait queue. Best-effort; must not throw.
	 * @param attempt the abandoned attempt
	 */
	default void abandon(LockAttempt attempt) {
	}

	/**
	 * Checks that the backend answers, for health indicators and the {@code locks} endpoint. The default makes one
	 * real round trip: a {@link #tryAcquire} of the probe, released at once if granted; "busy" counts as healthy
	 * (another instance is probing). Override it with something cheaper that still talks to the server (a PING, a
	 * {@code SELECT 1}, a session check). Must return or throw within the client's timeouts, never hang.
	 * @param probe an attempt on a key reserved for health checks, with its own owner token
	 * @throws Exception if the backend did not answer
	 */
	default void checkHealth(LockAttempt probe) throws Exception {
		Acquisition result;
		try {
			result = tryAcquire(probe);
		}
		catch (Exception ex) {
			abandon(probe);
			throw ex;
		}
		if (result.isAcquired()) {
			release(result.lock());
		}
	}

	/**
	 * Frees resources (subscriptions, threads). Locks still held stay held until their leases end.
	 */
	default void close() {
	}

}
