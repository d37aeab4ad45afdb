package dev.distlock.core.spi;

/**
 * A registration for release notifications of one lock (see
 * {@link LockProvider#subscribe}). Closing it stops the notifications; it must not fail.
 *
 * @since 0.1.0
 */
public interface ReleaseSubscription extends AutoCloseable {

	/** A subscription that delivers nothing: the waiter falls back to backoff polling. */
	ReleaseSubscription NONE = new ReleaseSubscription() {

		@Override
		public boolean isActive() {
			return false;
		}

		@Override
		public void close() {
		}

	};

	/**
	 * Whether notifications are really delivered; if not, the core polls with backoff
	 * instead of waiting for them.
	 * @return {@code true} if the backend will call back on release
	 */
	default boolean isActive() {
		return true;
	}

	@Override
	void close();

}
