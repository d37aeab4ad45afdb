package dev.distlock.sample.page;

import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * One lock call as {@link LockTimeline} recorded it. Times are epoch milliseconds with a
 * fraction, read from one monotonic clock per instance, so the calls of one instance
 * order exactly; {@code null} when it has not happened (yet).
 *
 * @param id the call's number in this instance, rising
 * @param instance who called: the instance's name, or a label for a second lock template
 * in it
 * @param thread the calling thread
 * @param key the lock key as requested
 * @param type the lock type
 * @param provider the backend
 * @param state where the call is now
 * @param fencingToken the lease's fencing token, 0 until acquired
 * @param requestedAt when the acquisition started
 * @param acquiredAt when the lock was granted
 * @param workStartedAt when the guarded work started (for {@code @DistributedLock}
 * methods)
 * @param workEndedAt when the guarded work ended, before the release began
 * @param releasedAt when the release was done
 * @param lostAt when the lease was found lost
 * @param detail why it was lost, or the error of a failed acquisition
 */
public record LockCall(long id, String instance, String thread, String key, LockType type, String provider, State state,
		long fencingToken, double requestedAt, @Nullable Double acquiredAt, @Nullable Double workStartedAt,
		@Nullable Double workEndedAt, @Nullable Double releasedAt, @Nullable Double lostAt, @Nullable String detail) {

	/**
	 * When the holder stopped using the lock: the end of its work when recorded (the
	 * release starts right after it, so the next holder is granted later), otherwise the
	 * end of the release.
	 * @return the end of the hold, or {@code null} while it is held
	 */
	public @Nullable Double heldUntil() {
		return (this.workEndedAt != null) ? this.workEndedAt : this.releasedAt;
	}

	/** Where a call is. */
	public enum State {

		/** Waiting for the lock. */
		WAITING,

		/** Holding it. */
		HELD,

		/** Held and released. */
		RELEASED,

		/** Given up after trying once ({@code waitTime = 0}): another holder had it. */
		SKIPPED,

		/** Given up when the wait time ran out. */
		TIMED_OUT,

		/** The backend failed. */
		FAILED

	}

}
