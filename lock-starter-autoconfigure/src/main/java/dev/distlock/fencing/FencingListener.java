package dev.distlock.fencing;

/**
 * Observes fenced writes that were refused, for metrics and logs. Called on the writer's
 * thread before the {@link StaleFencingTokenException} is thrown; implementations must be
 * fast and must not throw.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface FencingListener {

	/**
	 * A fenced write was refused.
	 * @param store where it was refused: {@code jdbc} or {@code redis}
	 * @param name the logical name of the lease that carried the token ({@code null} if
	 * none)
	 * @param exception the exception about to be thrown
	 */
	void rejected(String store, @org.jspecify.annotations.Nullable String name, StaleFencingTokenException exception);

}
