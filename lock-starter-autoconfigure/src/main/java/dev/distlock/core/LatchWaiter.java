package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The wait of one {@link LatchTemplate#await(String, Duration)}: a deadline, and the loop that checks the count until
 * it is zero, sleeping between checks until the backend's notification arrives (at most
 * {@code distlock.wait.fallback-poll}, in case one is lost) or, without notifications, for a jittered backoff that
 * doubles from {@code distlock.wait.min-backoff} to {@code distlock.wait.max-backoff}.
 *
 * @since 0.2.0
 */
public final class LatchWaiter {

	private final long deadlineNanos;

	private final LockSettings settings;

	LatchWaiter(long deadlineNanos, LockSettings settings) {
		this.deadlineNanos = deadlineNanos;
		this.settings = settings;
	}

	/**
	 * What is left of the wait.
	 * @return the remaining time, zero once the deadline passed
	 */
	public Duration remaining() {
		return Duration.ofNanos(Math.max(0, this.deadlineNanos - System.nanoTime()));
	}

	/**
	 * The core's wait loop: subscribe, then check the count until it is zero or the deadline passes.
	 * @param provider the backend
	 * @param latch the full latch name
	 * @return {@code true} if the count reached zero in time
	 * @throws InterruptedException if interrupted
	 * @throws Exception if the backend failed
	 */
	public boolean awaitZero(LatchProvider provider, String latch) throws Exception {
		WakeUpSignal signal = new WakeUpSignal();
		try (ReleaseSubscription subscription = provider.subscribe(latch, signal::signal)) {
			boolean notified = subscription.isActive();
			long cap = notified ? this.settings.fallbackPoll().toNanos() : this.settings.maxBackoff().toNanos();
			long backoff = Math.min(this.settings.minBackoff().toNanos(), cap);
			while (provider.count(latch) > 0) {
				long left = this.deadlineNanos - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				long sleep = notified ? cap : backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
				signal.await(Math.min(left, sleep));
				backoff = Math.min(backoff * 2, cap);
			}
			return true;
		}
	}

}
