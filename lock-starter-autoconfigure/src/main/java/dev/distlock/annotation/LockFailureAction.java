package dev.distlock.annotation;

/**
 * What a {@link DistributedLock @DistributedLock} method does when its lock is busy for
 * the whole wait time. Backend failures and interrupts are not "busy": they always raise
 * {@link dev.distlock.core.LockAcquisitionException}.
 *
 * @since 0.1.0
 */
public enum LockFailureAction {

	/**
	 * Throw {@link dev.distlock.core.LockAcquisitionException}; the method does not run.
	 */
	THROW,

	/**
	 * Do not run the method and return an empty result: {@code null} (or nothing for
	 * {@code void}), {@code Optional.empty()}, a completed
	 * {@code CompletableFuture}/{@code CompletionStage} of {@code null}, or an empty
	 * {@code Mono}/{@code Flux}. Not allowed on methods returning a primitive other than
	 * {@code void}.
	 */
	SKIP

}
