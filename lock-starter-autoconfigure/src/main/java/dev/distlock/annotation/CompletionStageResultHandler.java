package dev.distlock.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Holds the lock of a method returning {@code CompletionStage} or
 * {@code CompletableFuture} until the returned stage completes. The caller gets a new
 * {@code CompletableFuture} that completes only after the lock was released, so code
 * continuing from it never races the release. Cancelling that future does not cancel the
 * method's own stage (which may still be running, and keeps the lock until it completes).
 *
 * @since 0.1.0
 */
public class CompletionStageResultHandler implements AsyncResultHandler {

	@Override
	public boolean supports(Class<?> returnType) {
		return returnType == CompletionStage.class || returnType == CompletableFuture.class;
	}

	@Override
	public Object whenComplete(Object result, Completion completion) {
		CompletableFuture<@Nullable Object> done = new CompletableFuture<>();
		((CompletionStage<?>) result).whenComplete((value, error) -> {
			Throwable failure = completion.complete(error);
			if (failure != null) {
				done.completeExceptionally(failure);
			}
			else {
				done.complete(value);
			}
		});
		return done;
	}

	@Override
	public Object empty(Class<?> returnType) {
		return CompletableFuture.completedFuture(null);
	}

}
