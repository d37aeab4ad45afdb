package dev.distlock.core;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of one acquire attempt ({@link LockProvider#tryAcquire(LockAttempt)}): granted with a
 * {@link HeldLock}, or busy with an optional hint of how long the current holder's lease has left.
 *
 * @since 0.1.0
 */
public final class Acquisition {

	private static final Acquisition BUSY = new Acquisition(null, null);

	private final @Nullable HeldLock lock;

	private final @Nullable Duration retryAfter;

	private Acquisition(@Nullable HeldLock lock, @Nullable Duration retryAfter) {
		this.lock = lock;
		this.retryAfter = retryAfter;
	}

	public static Acquisition acquired(HeldLock lock) {
		return new Acquisition(Objects.requireNonNull(lock, "lock"), null);
	}

	/**
	 * Busy, with no idea when it frees.
	 * @return the busy outcome
	 */
	public static Acquisition busy() {
		return BUSY;
	}

	/**
	 * Busy; the current lease ends in {@code retryAfter} at the latest (for example Redis' PTTL), so a waiter need
	 * not poll before then.
	 * @param retryAfter time left on the holder's lease, or {@code null} if unknown
	 * @return the busy outcome
	 */
	public static Acquisition busy(@Nullable Duration retryAfter) {
		return (retryAfter != null) ? new Acquisition(null, retryAfter) : BUSY;
	}

	public boolean isAcquired() {
		return this.lock != null;
	}

	/**
	 * The granted lock.
	 * @return the lock
	 * @throws IllegalStateException if the attempt was not granted
	 */
	public HeldLock lock() {
		if (this.lock == null) {
			throw new IllegalStateException("Acquisition was not granted");
		}
		return this.lock;
	}

	public @Nullable Duration retryAfter() {
		return this.retryAfter;
	}

}
