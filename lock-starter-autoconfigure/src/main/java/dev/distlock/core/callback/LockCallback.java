package dev.distlock.core.callback;

import dev.distlock.core.Lease;
import dev.distlock.core.LockContext;
import org.jspecify.annotations.Nullable;

/**
 * The work
 * {@code LockTemplate.execute(LockRequest, LockCallback, BusyCallback, AsyncHold)} runs
 * under the lock.
 *
 * @param <T> the result type
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockCallback<T> {

	/**
	 * Runs the guarded work.
	 * @param lease the held lease (also {@link LockContext#currentLease()})
	 * @return the result
	 * @throws Throwable whatever the work throws; it reaches the caller unchanged
	 */
	@Nullable T doWithLock(Lease lease) throws Throwable;

}
