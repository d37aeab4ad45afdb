package dev.distlock.core.spi;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockSettings;
import dev.distlock.core.support.WakeUpSignal;
import org.jspecify.annotations.Nullable;

/**
 * The one pause between two tries of a wait ({@link LockWaiter}, {@link LatchWaiter}):
 * until the backend's notification arrives, at most {@code distlock.wait.fallback-poll}
 * in case one is lost; without notifications, a jittered backoff that doubles from
 * {@code distlock.wait.min-backoff} to {@code distlock.wait.max-backoff}. Never past the
 * deadline. One instance per wait, used by one thread.
 */
final class Backoff {

	private static final long HINT_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final long deadlineNanos;

	private final boolean notified;

	private final long capNanos;

	private long nextNanos;

	Backoff(long deadlineNanos, LockSettings settings, boolean notified) {
		this.deadlineNanos = deadlineNanos;
		this.notified = notified;
		this.capNanos = (notified ? settings.fallbackPoll() : settings.maxBackoff()).toNanos();
		this.nextNanos = Math.min(settings.minBackoff().toNanos(), this.capNanos);
	}

	/**
	 * Waits until signalled or until the next try is due, never past the deadline.
	 * @param signal the waiter's wake-up signal
	 * @param freeWithin how long until the holder's lease ends at the latest (a busy
	 * reply's hint), or {@code null}
	 * @return {@code false} if the deadline had passed (nothing was waited), {@code true}
	 * after the pause
	 * @throws InterruptedException if interrupted while waiting
	 */
	boolean pause(WakeUpSignal signal, @Nullable Duration freeWithin) throws InterruptedException {
		long remaining = this.deadlineNanos - System.nanoTime();
		if (remaining <= 0) {
			return false;
		}
		long sleep = this.notified ? this.capNanos : jitter(this.nextNanos);
		if (freeWithin != null && freeWithin.compareTo(Duration.ofNanos(sleep)) < 0) {
			// the holder's lease ends then at the latest; a little slack lets the expiry
			// happen first
			sleep = Math.min(sleep, freeWithin.toNanos() + HINT_SLACK_NANOS);
		}
		signal.await(Math.min(sleep, remaining));
		this.nextNanos = Math.min(this.nextNanos * 2, this.capNanos);
		return true;
	}

	private static long jitter(long nanos) {
		// "equal jitter": half fixed, half random, so waiters of one key spread out but
		// still back off
		long half = Math.max(1, nanos / 2);
		return half + ThreadLocalRandom.current().nextLong(half);
	}

}
