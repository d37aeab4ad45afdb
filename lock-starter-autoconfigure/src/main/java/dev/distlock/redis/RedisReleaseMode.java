package dev.distlock.redis;

/**
 * Whether a release of the {@code redis} backend waits for Redis' reply
 * ({@code distlock.redis.release-mode}).
 *
 * @since 0.1.0
 */
public enum RedisReleaseMode {

	/** A release returns after Redis confirmed it (the default). */
	SYNC,

	/**
	 * A release returns once it is written to the connection. Commands stay ordered on
	 * the connection, so this JVM's next acquisition of the key is served after the
	 * release; a release that fails is logged and counted
	 * ({@link RedisLockProvider#failedReleases()}), and its lock stays taken until its
	 * lease ends. Only a Lettuce connection sends asynchronously; other drivers wait as
	 * with {@link #SYNC}.
	 */
	ASYNC

}
