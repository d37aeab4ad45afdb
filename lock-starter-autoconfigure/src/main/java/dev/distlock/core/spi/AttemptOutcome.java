package dev.distlock.core.spi;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of one acquire attempt
 * ({@link TryOnceLockProvider#tryAcquire(LockAttempt)}): granted with a {@link HeldLock},
 * or busy with an optional hint of how long the current holder's lease has left.
 *
 * @param <H> the backend's handle type
 * @since 0.1.0
 */
public final class AttemptOutcome<H extends HeldLock> {

	private static final AttemptOutcome<?> BUSY = new AttemptOutcome<>(null, null);

	private final @Nullable H lock;

	private final @Nullable Duration retryAfter;

	private AttemptOutcome(@Nullable H lock, @Nullable Duration retryAfter) {
		this.lock = lock;
		this.retryAfter = retryAfter;
	}

	public static <H extends HeldLock> AttemptOutcome<H> acquired(H lock) {
		return new AttemptOutcome<>(Objects.requireNonNull(lock, "lock"), null);
	}

	/**
	 * Busy, with no idea when it frees.
	 * @return the busy outcome
	 */
	@SuppressWarnings("unchecked")
	public static <H extends HeldLock> AttemptOutcome<H> busy() {
		return (AttemptOutcome<H>) BUSY;
	}

	/**
	 * Busy; the current lease ends in {@code retryAfter} at the latest (for example
	 * Redis' PTTL), so a waiter need not poll before then.
	 * @param retryAfter time left on the holder's lease, or {@code null} if unknown
	 * @return the busy outcome
	 */
	public static <H extends HeldLock> AttemptOutcome<H> busy(@Nullable Duration retryAfter) {
		return (retryAfter != null) ? new AttemptOutcome<>(null, retryAfter) : busy();
	}

	public boolean isAcquired() {
		return this.lock != null;
	}

	/**
	 * The granted lock.
	 * @return the lock
	 * @throws IllegalStateException if the attempt was not granted
	 */
	public H lock() {
		if (this.lock == null) {
			throw new IllegalStateException("AttemptOutcome was not granted");
		}
		return this.lock;
	}

	public @Nullable Duration retryAfter() {
		return this.retryAfter;
	}

}
