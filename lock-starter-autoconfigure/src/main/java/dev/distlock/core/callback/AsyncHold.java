package dev.distlock.core.callback;

import dev.distlock.core.Lease;
import dev.distlock.core.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a lock past the return of the guarded work until an asynchronous result (a
 * {@code CompletableFuture}, a Reactor publisher) completes.
 * {@code LockTemplate.execute(LockRequest, LockCallback, BusyCallback, AsyncHold)} hands
 * the work's result here instead of releasing; the hold must call
 * {@link Completion#complete} exactly once, when the result completes, fails or is
 * cancelled, or when it is discarded unsubscribed.
 *
 * @param <T> the result type
 * @since 0.1.0
 */
@FunctionalInterface
public interface AsyncHold<T> {

	/**
	 * Returns a value that completes like {@code result}, after {@code completion} ran.
	 * @param result what the guarded work returned, not {@code null}
	 * @param lease the held lease
	 * @param completion releases the lock
	 * @return the value to hand to the caller
	 */
	T hold(T result, Lease lease, Completion completion);

	/**
	 * Ends an asynchronous hold.
	 */
	@FunctionalInterface
	interface Completion {

		/**
		 * Releases the lock (once; later calls do nothing) and tells how the result must
		 * complete.
		 * @param failure the result's failure, or {@code null} if it succeeded
		 * @return the failure to complete with: {@code failure} itself (with a loss added
		 * as suppressed), a {@link LockLostException} if the result succeeded but the
		 * lease was lost meanwhile, or {@code null}
		 */
		@Nullable Throwable complete(@Nullable Throwable failure);

	}

}
