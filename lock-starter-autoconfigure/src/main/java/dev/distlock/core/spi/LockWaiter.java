package dev.distlock.core.spi;

import java.time.Duration;

import dev.distlock.core.LockSettings;
import dev.distlock.core.support.WakeUpSignal;
import org.jspecify.annotations.Nullable;

/**
 * The deadline of one acquisition and the core's wait loop. Thin backends never see more
 * than {@link TryOnceLockProvider#tryAcquire} calls from it: attempt; if busy, subscribe
 * to release notifications and attempt again (closing the gap between the first attempt
 * and the subscription); then sleep until notified, until the holder's lease ends
 * ({@link AttemptOutcome#retryAfter()}), or for a capped, jittered, exponentially growing
 * backoff, whichever comes first, and try again, with a last attempt at the deadline.
 * With notifications the sleep is capped by the fallback poll, so a lost message costs at
 * most that.
 * <p>
 * Backends that own their waiting use only {@link #remaining()} and
 * {@link #deadlineNanos()}.
 *
 * @since 0.1.0
 */
public final class LockWaiter {

	private final long deadlineNanos;

	private final boolean tryOnce;

	private final LockSettings settings;

	private LockWaiter(long deadlineNanos, boolean tryOnce, LockSettings settings) {
		this.tryOnce = tryOnce;
		this.deadlineNanos = deadlineNanos;
		this.settings = settings;
	}

	/**
	 * A waiter that makes one attempt.
	 * @return the waiter
	 */
	public static LockWaiter tryOnce() {
		return new LockWaiter(System.nanoTime(), true, LockSettings.defaults());
	}

	/**
	 * A waiter until a deadline, as the core makes one for each acquisition.
	 * @param deadlineNanos the deadline on the {@link System#nanoTime()} scale
	 * @param tryOnce whether to make one attempt only ({@code waitTime = 0})
	 * @param settings the backoff settings
	 * @return the waiter
	 */
	public static LockWaiter until(long deadlineNanos, boolean tryOnce, LockSettings settings) {
		return new LockWaiter(deadlineNanos, tryOnce, settings);
	}

	/**
	 * The deadline on the {@link System#nanoTime()} scale.
	 * @return the deadline
	 */
	public long deadlineNanos() {
		return this.deadlineNanos;
	}

	/**
	 * Time left until the deadline, never negative.
	 * @return the time left
	 */
	public Duration remaining() {
		return this.tryOnce ? Duration.ZERO : Duration.ofNanos(Math.max(0, this.deadlineNanos - System.nanoTime()));
	}

	/**
	 * Whether the caller asked to try once ({@code waitTime = 0}).
	 * @return {@code true} for a single attempt
	 */
	public boolean isTryOnce() {
		return this.tryOnce;
	}

	/**
	 * Runs the wait loop for a thin backend.
	 * @param <H> the backend's handle type
	 * @param provider the backend
	 * @param attempt what to acquire
	 * @return the granted lock, or {@code null} when the deadline passed
	 * @throws InterruptedException if interrupted while waiting
	 * @throws Exception if the backend failed
	 */
	public <H extends HeldLock> @Nullable H await(TryOnceLockProvider<H> provider, LockAttempt attempt)
			throws Exception {
		attempt.markSent();
		AttemptOutcome<H> outcome = provider.tryAcquire(attempt);
		if (outcome.isAcquired()) {
			return outcome.lock();
		}
		if (this.tryOnce || System.nanoTime() - this.deadlineNanos >= 0) {
			return null;
		}
		WakeUpSignal wakeUp = new WakeUpSignal();
		try (ReleaseSubscription subscription = provider.subscribe(attempt, remaining(), wakeUp::signal)) {
			Backoff backoff = new Backoff(this.deadlineNanos, this.settings, subscription.isActive());
			do {
				attempt.markSent();
				outcome = provider.tryAcquire(attempt);
				if (outcome.isAcquired()) {
					return outcome.lock();
				}
			}
			while (backoff.pause(wakeUp, outcome.retryAfter()));
			return null;
		}
	}

}
