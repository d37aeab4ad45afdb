package dev.distlock.core.spi;

import java.time.Duration;

import dev.distlock.core.LockSettings;
import dev.distlock.core.support.WakeUpSignal;

/**
 * The wait of one {@code LatchTemplate.await(String, Duration)}: a deadline, and the loop
 * that checks the count until it is zero, sleeping between checks until the backend's
 * notification arrives (at most {@code distlock.wait.fallback-poll}, in case one is lost)
 * or, without notifications, for a jittered backoff that doubles from
 * {@code distlock.wait.min-backoff} to {@code distlock.wait.max-backoff}.
 *
 * @since 0.2.0
 */
public final class LatchWaiter {

	private final long deadlineNanos;

	private final LockSettings settings;

	private LatchWaiter(long deadlineNanos, LockSettings settings) {
		this.deadlineNanos = deadlineNanos;
		this.settings = settings;
	}

	/**
	 * A wait of at most {@code timeout} from now, as the core makes one for each await.
	 * @param timeout the longest wait, not negative
	 * @param settings the backoff settings
	 * @return the waiter
	 */
	public static LatchWaiter within(Duration timeout, LockSettings settings) {
		long nanos;
		try {
			nanos = timeout.toNanos();
		}
		catch (ArithmeticException ex) {
			nanos = Long.MAX_VALUE / 4;
		}
		return new LatchWaiter(System.nanoTime() + Math.min(nanos, Long.MAX_VALUE / 4), settings);
	}

	/**
	 * What is left of the wait.
	 * @return the remaining time, zero once the deadline passed
	 */
	public Duration remaining() {
		return Duration.ofNanos(Math.max(0, this.deadlineNanos - System.nanoTime()));
	}

	/**
	 * The core's wait loop: subscribe, then check the count until it is zero or the
	 * deadline passes.
	 * @param provider the backend
	 * @param latch the full latch name
	 * @return {@code true} if the count reached zero in time
	 * @throws InterruptedException if interrupted
	 * @throws Exception if the backend failed
	 */
	public boolean awaitZero(LatchProvider provider, String latch) throws Exception {
		WakeUpSignal signal = new WakeUpSignal();
		try (ReleaseSubscription subscription = provider.subscribe(latch, signal::signal)) {
			Backoff backoff = new Backoff(this.deadlineNanos, this.settings, subscription.isActive());
			while (provider.count(latch) > 0) {
				if (!backoff.pause(signal, null)) {
					return false;
				}
			}
			return true;
		}
	}

}
