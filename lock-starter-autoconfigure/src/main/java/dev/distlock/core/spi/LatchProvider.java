package dev.distlock.core.spi;

import java.time.Duration;

/**
 * The backend SPI of {@code LatchTemplate}: a countdown latch whose count lives in the
 * backend, so it survives the processes that set it and count it down. A latch that does
 * not exist (never set, counted down to zero, or expired) has the count zero. Every latch
 * is stored with an expiry, so abandoned ones do not pile up.
 * <p>
 * A backend supplies the three atomic operations and, where it has one, a notification
 * that a latch reached zero; the core's {@link LatchWaiter} then runs the wait
 * (notification, or polling with capped backoff, and the deadline). A backend with a
 * waiting primitive of its own overrides {@link #await(String, LatchWaiter)}.
 * Implementations are thread-safe; names are data (never spliced into a script, a query
 * or a path unescaped).
 *
 * @since 0.2.0
 */
public interface LatchProvider {

	/**
	 * The backend's name, as for locks ({@code local}, {@code redis}, ...).
	 * @return the name
	 */
	String name();

	/**
	 * Creates the latch with the count, atomically, unless it exists.
	 * @param latch the full latch name (with {@code distlock.key-prefix})
	 * @param count the count, at least one
	 * @param expiry how long the latch lives at most, from now, in the backend's time
	 * @return {@code true} if it was created, {@code false} if a latch of that name
	 * exists (its count is unchanged)
	 * @throws Exception if the backend failed
	 */
	boolean trySetCount(String latch, long count, Duration expiry) throws Exception;

	/**
	 * Counts the latch down by one, atomically; at zero it is deleted and its waiters are
	 * notified. Counting down a latch that does not exist does nothing.
	 * @param latch the full latch name
	 * @throws Exception if the backend failed
	 */
	void countDown(String latch) throws Exception;

	/**
	 * The latch's count.
	 * @param latch the full latch name
	 * @return the count, zero if the latch does not exist
	 * @throws Exception if the backend failed
	 */
	long count(String latch) throws Exception;

	/**
	 * Asks to be told when the latch may have reached zero.
	 * @param latch the full latch name
	 * @param listener called (on any thread, quickly) when the latch may be at zero
	 * @return the subscription; {@link ReleaseSubscription#NONE} if the backend has no
	 * notification, so waiters poll
	 * @throws Exception if the backend failed
	 */
	default ReleaseSubscription subscribe(String latch, Runnable listener) throws Exception {
		return ReleaseSubscription.NONE;
	}

	/**
	 * Waits until the latch is at zero or the waiter's deadline passes. The default is
	 * the core's wait loop over {@link #subscribe} and {@link #count}.
	 * @param latch the full latch name
	 * @param waiter the deadline and backoff
	 * @return {@code true} if the count is zero, {@code false} if the deadline passed
	 * first
	 * @throws InterruptedException if the waiting thread was interrupted
	 * @throws Exception if the backend failed
	 */
	default boolean await(String latch, LatchWaiter waiter) throws Exception {
		return waiter.awaitZero(this, latch);
	}

	/**
	 * Frees resources (subscriptions, threads); latches stay in the backend until they
	 * reach zero or expire.
	 */
	default void close() {
	}

}
