package dev.distlock.redisson;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One acquisition of the {@code redisson} provider, in progress or given up: its owner
 * id, its deadlines ({@link System#nanoTime()}: the end of its wait, and the latest
 * moment any of its Redis calls may return), the Redisson reply it waits for, and whether
 * a grant was answered (with a SEMAPHORE's permit id), so that a cleanup knows what may
 * be held.
 */
final class PendingAcquisition {

	private final long ownerId;

	private final long waitUntil;

	private final long deadline;

	private volatile @Nullable CompletableFuture<?> acquiring;

	private volatile boolean waiting;

	private volatile boolean granted;

	private volatile @Nullable String permitId;

	PendingAcquisition(long ownerId, long waitUntil, long deadline) {
		this.ownerId = ownerId;
		this.waitUntil = waitUntil;
		this.deadline = deadline;
	}

	long ownerId() {
		return this.ownerId;
	}

	/** The latest moment any Redis call of this acquisition may return. */
	long deadline() {
		return this.deadline;
	}

	/** The wait left to hand to Redisson, 0 to try once. */
	long waitMillis() {
		return Math.max(0, TimeUnit.NANOSECONDS.toMillis(this.waitUntil - System.nanoTime()));
	}

	/**
	 * Remembers a request that may grant the lock and that cannot be taken back once sent
	 * (a script).
	 * @param reply its reply
	 * @return the reply
	 */
	<T> CompletableFuture<T> track(CompletableFuture<T> reply) {
		this.waiting = false;
		this.acquiring = reply;
		return reply;
	}

	/**
	 * Remembers Redisson's waiting for the lock, which {@link #stop()} cancels.
	 * @param reply Redisson's future
	 * @return the future
	 */
	<T> CompletableFuture<T> trackWait(CompletableFuture<T> reply) {
		this.waiting = true;
		this.acquiring = reply;
		return reply;
	}

	/**
	 * Records that Redis answered with a grant.
	 * @param permit the permit of a SEMAPHORE, else {@code null}
	 */
	void granted(@Nullable String permit) {
		this.permitId = permit;
		this.granted = true;
	}

	boolean isGranted() {
		return this.granted;
	}

	@Nullable String permitId() {
		return this.permitId;
	}

	/**
	 * Stops the acquisition: cancels Redisson's waiting, which then stops and itself
	 * releases a grant that reaches it after.
	 * @return the last request that may have granted the lock, complete once its outcome
	 * is known: its reply, or a failure when it is unknown (no answer, cancelled)
	 */
	CompletableFuture<?> stop() {
		CompletableFuture<?> reply = this.acquiring;
		if (reply == null) {
			return CompletableFuture.completedFuture(null);
		}
		if (this.waiting) {
			reply.cancel(false);
		}
		return reply;
	}

}
