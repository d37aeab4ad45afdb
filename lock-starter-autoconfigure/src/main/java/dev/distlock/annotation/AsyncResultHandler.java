package dev.distlock.annotation;

import org.jspecify.annotations.Nullable;

/**
 * Support for one kind of asynchronous return type of
 * {@link DistributedLock @DistributedLock} methods: the lock is held until the returned
 * value completes, not just until the method returns. Declare beans of this type to add
 * kinds; {@link CompletionStageResultHandler} for {@code CompletionStage} and
 * {@code CompletableFuture} is always there. Reactor's {@code Mono} and {@code Flux} are
 * not results of this kind (they lock per subscription, see {@link DistributedLock});
 * another {@code org.reactivestreams.Publisher} type that no handler supports fails at
 * startup rather than release its lock before anything ran.
 *
 * @since 0.1.0
 */
public interface AsyncResultHandler {

	/**
	 * Whether this handler deals with methods declaring this return type.
	 * @param returnType the declared return type
	 * @return {@code true} if supported
	 */
	boolean supports(Class<?> returnType);

	/**
	 * Returns a value of the declared type that completes like {@code result}, after
	 * calling {@link Completion#complete(Throwable)} exactly once when {@code result}
	 * completes, from whichever thread completes it.
	 * @param result what the method returned, not {@code null}
	 * @param completion releases the lock
	 * @return the value to hand to the caller
	 */
	Object whenComplete(Object result, Completion completion);

	/**
	 * The result of a method skipped under {@link LockFailureAction#SKIP}: an already
	 * completed, empty value.
	 * @param returnType the declared return type
	 * @return the empty result
	 */
	@Nullable Object empty(Class<?> returnType);

	/**
	 * Ends the hold of an asynchronous result.
	 */
	@FunctionalInterface
	interface Completion {

		/**
		 * Releases the lock and tells how the returned value must complete.
		 * @param failure the result's failure, or {@code null} if it succeeded
		 * @return the failure to complete with: {@code failure} itself, or a
		 * {@link dev.distlock.core.LockLostException} if the result succeeded but the
		 * lease was lost meanwhile, or {@code null} to complete normally
		 */
		@Nullable Throwable complete(@Nullable Throwable failure);

	}

}
