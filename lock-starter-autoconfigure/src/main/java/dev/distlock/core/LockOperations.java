package dev.distlock.core;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * What code that locks needs, implemented by {@link LockTemplate}: run work under a lock,
 * or take a {@link Lease} and release it later, from any thread. Inject this interface
 * (or the template) where a method-level {@code @DistributedLock} does not fit; mock it
 * in unit tests of your own code.
 * <p>
 * Semantics, on every backend: one holder per key for MUTEX, FAIR and WRITE while leases
 * are valid; READ shares with READ only; SEMAPHORE admits {@code permits} holders. The
 * thread holding a MUTEX, FAIR, READ or WRITE lock re-acquires it without a backend round
 * trip and the lock is released when the outermost hold ends. Every acquisition carries a
 * fencing token that strictly increases per lock.
 *
 * @since 0.3.0
 */
public interface LockOperations {

	/**
	 * Runs the action under a MUTEX on the key, with the configured defaults for lease
	 * and wait.
	 * @param <T> the result type
	 * @param key the lock key
	 * @param action the guarded action
	 * @return the action's result
	 * @throws LockAcquisitionException if the lock could not be acquired within the
	 * default wait
	 * @throws LockLostException if the lease was lost while the action ran (after the
	 * action completed)
	 */
	default <T> T execute(String key, Callable<T> action) {
		return execute(LockRequest.of(key), action);
	}

	/**
	 * Runs the action under the requested lock and releases it afterwards, also when the
	 * action throws. Inside the action {@link LockContext#currentLease()} is the lease.
	 * Runtime exceptions and errors from the action propagate unchanged; a checked
	 * exception is wrapped in an {@link UndeclaredThrowableException}.
	 * @param <T> the result type
	 * @param request what to lock
	 * @param action the guarded action
	 * @return the action's result
	 * @throws LockAcquisitionException if the lock could not be acquired within the wait
	 * time
	 * @throws LockLostException if the lease was lost or ran out while the action ran
	 * (after the action completed)
	 */
	<T> T execute(LockRequest request, Callable<T> action);

	/**
	 * Runs the action under a MUTEX on the key; see
	 * {@link #execute(LockRequest, Callable)}.
	 * @param key the lock key
	 * @param action the guarded action
	 */
	default void run(String key, Runnable action) {
		run(LockRequest.of(key), action);
	}

	/**
	 * Runs the action under the requested lock; see
	 * {@link #execute(LockRequest, Callable)}.
	 * @param request what to lock
	 * @param action the guarded action
	 */
	default void run(LockRequest request, Runnable action) {
		execute(request, () -> {
			action.run();
			return null;
		});
	}

	/**
	 * Acquires the requested lock, waiting up to its wait time.
	 * @param request what to lock
	 * @return the lease; release it (or close it) when done
	 * @throws LockAcquisitionException if the wait time ran out or the backend failed
	 * @throws LockConfigurationException if the provider is unknown or lacks the type
	 */
	Lease acquire(LockRequest request);

	/**
	 * Acquires the requested lock if it can be had within the request's wait time.
	 * @param request what to lock
	 * @return the lease, or empty if the wait time ran out
	 * @throws LockAcquisitionException if the backend failed or the thread was
	 * interrupted
	 * @throws LockConfigurationException if the provider is unknown or lacks the type
	 */
	Optional<Lease> tryAcquire(LockRequest request);

	/**
	 * Throws if the lease was lost, or ran out by its own clock, while held: what
	 * {@code execute} checks when the work ends, for code that acquires and releases
	 * itself.
	 * @param lease the lease
	 * @throws LockLostException if the lease was lost
	 */
	void checkNotLost(Lease lease);

}
