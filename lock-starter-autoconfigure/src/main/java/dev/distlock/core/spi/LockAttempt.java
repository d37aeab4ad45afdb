package dev.distlock.core.spi;

import java.time.Duration;

import dev.distlock.core.LockLostException;
import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * What the core asks a backend for: a lock on {@link #key()} of {@link #type()} for
 * {@link #owner()}, with a backend lease of {@link #lease()}, every call for it ending by
 * {@link #deadlineNanos()}. The owner token is unique across processes and is the only
 * identity the backend should store and compare (never a thread id). A backend that later
 * learns the lock is gone without being asked (a ZooKeeper session ended, a connection
 * holding a database lock died) calls {@link #reportLost(String)}.
 *
 * @since 0.1.0
 */
public final class LockAttempt {

	private static final long DEFAULT_CALL_NANOS = 1_000_000_000L;

	private final String key;

	private final LockType type;

	private final int permits;

	private final Duration lease;

	private final String ownerPrefix;

	private final long ownerSequence;

	private final long deadlineNanos;

	private final @Nullable LeaseLink link;

	private @Nullable String owner; // built on first use: in-JVM backends never need the
									// string

	private volatile long sentNanos;

	private volatile boolean sentMarked;

	private volatile @Nullable String lostReason;

	/**
	 * Creates an attempt whose calls have one second, as a backend's own tests do.
	 * @param key the full key (with prefix)
	 * @param type the lock type
	 * @param permits the permits of a SEMAPHORE, else 1
	 * @param lease the backend lease to set
	 * @param owner the unique owner token
	 */
	public LockAttempt(String key, LockType type, int permits, Duration lease, String owner) {
		this(key, type, permits, lease, owner, -1, System.nanoTime() + DEFAULT_CALL_NANOS, null);
	}

	/**
	 * Creates an attempt as the core does.
	 * @param key the full key (with prefix)
	 * @param type the lock type
	 * @param permits the permits of a SEMAPHORE, else 1
	 * @param lease the backend lease to set
	 * @param ownerPrefix the owner token, or its prefix when {@code ownerSequence} is not
	 * negative
	 * @param ownerSequence appended to the prefix to make the owner token, or {@code -1}
	 * for none
	 * @param deadlineNanos when every backend call of the acquisition must have returned
	 * @param link the core's lease this attempt is for, or {@code null} (a backend's own
	 * tests)
	 */
	public LockAttempt(String key, LockType type, int permits, Duration lease, String ownerPrefix, long ownerSequence,
			long deadlineNanos, @Nullable LeaseLink link) {
		this.key = key;
		this.type = type;
		this.permits = permits;
		this.lease = lease;
		this.ownerPrefix = ownerPrefix;
		this.ownerSequence = ownerSequence;
		this.deadlineNanos = deadlineNanos;
		this.link = link;
	}

	/**
	 * The full key, prefix included. Treat it as data: never splice it into a script, a
	 * query or a path unescaped.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * The lock type asked for.
	 * @return the type
	 */
	public LockType type() {
		return this.type;
	}

	/**
	 * The most holders at once of a SEMAPHORE; 1 for other types.
	 * @return the permits
	 */
	public int permits() {
		return this.permits;
	}

	/**
	 * The lease to set on the backend; the core renews it when the caller asked for no
	 * fixed lease.
	 * @return the lease
	 */
	public Duration lease() {
		return this.lease;
	}

	/**
	 * The latest moment, on the {@link System#nanoTime()} scale, at which any backend
	 * call made for this acquisition may return: the wait's deadline plus
	 * {@code distlock.call-timeout}. A backend bounds each of its calls by it (a command
	 * timeout, {@code Connection.setNetworkTimeout}, a future's {@code get(timeout)}),
	 * whatever the client library's own timeouts are, and treats a call cut off there as
	 * one whose outcome is unknown. An attempt created through the short constructor has
	 * one second.
	 * @return the deadline of every call for this attempt
	 */
	public long deadlineNanos() {
		return this.deadlineNanos;
	}

	/**
	 * What is left until {@link #deadlineNanos()}, never negative.
	 * @return the time left for calls of this attempt
	 */
	public Duration callTimeLeft() {
		return Duration.ofNanos(Math.max(0, this.deadlineNanos - System.nanoTime()));
	}

	/**
	 * The owner token: unique per acquisition across processes.
	 * @return the owner token
	 */
	public String owner() {
		String value = this.owner;
		if (value == null) {
			value = (this.ownerSequence < 0) ? this.ownerPrefix : this.ownerPrefix + this.ownerSequence;
			this.owner = value;
		}
		return value;
	}

	/**
	 * Appends the owner token, exactly as {@link #owner()} returns it, without making
	 * this attempt keep it: a backend that only writes the token into data it sends (and
	 * never compares it later) need not have every held attempt carry the string, which
	 * {@link #owner()} builds once and keeps. Calling it leaves {@link #owner()}'s result
	 * unchanged.
	 * @param to the builder to append to
	 * @return {@code to}
	 * @since 0.1.0
	 */
	public StringBuilder appendOwner(StringBuilder to) {
		String value = this.owner;
		if (value != null) {
			return to.append(value);
		}
		to.append(this.ownerPrefix);
		if (this.ownerSequence >= 0) {
			to.append(this.ownerSequence);
		}
		return to;
	}

	/**
	 * Records that a request that may grant the lock is about to be sent. The lease's
	 * expiry is measured from the last such mark, because the backend cannot have started
	 * the lease earlier. The core's wait loop marks every attempt; a backend that owns
	 * its waiting must call this before each request that may grant the lock (if it never
	 * does, the core measures from when {@code acquire} returned, which is later by up to
	 * one round trip).
	 */
	public void markSent() {
		this.sentNanos = System.nanoTime();
		this.sentMarked = true;
	}

	/**
	 * When the last request that may have granted the lock was sent
	 * ({@link #markSent()}).
	 * @param fallback what to return if none was marked
	 * @return the {@link System#nanoTime()} of the last mark, or {@code fallback}
	 */
	public long sentNanos(long fallback) {
		return this.sentMarked ? this.sentNanos : fallback;
	}

	/**
	 * Tells the core that the lock granted to this attempt is gone. Safe to call from any
	 * thread, at any time, more than once; only the first call counts.
	 * @param reason what happened, for logs and the {@link LockLostException} message
	 */
	public void reportLost(String reason) {
		if (this.lostReason == null) {
			this.lostReason = reason;
			LeaseLink current = this.link;
			if (current != null) {
				current.lost(reason);
			}
		}
	}

	/**
	 * The reason the backend gave in {@link #reportLost(String)}.
	 * @return the reason, or {@code null} if none was reported
	 */
	public @Nullable String lostReason() {
		return this.lostReason;
	}

	/**
	 * Whether the holder already released the lease granted to this attempt. A backend
	 * that still holds the lock then keeps it only for a hold-at-least
	 * ({@code LockRequest.holdAtLeast()}, {@code Lease.extend(lease, holdAtLeast)}) and
	 * must leave it until the end of that hold: a doubt about its connection is no reason
	 * to delete it, since there is no holder left to tell.
	 * @return {@code true} once the lease was released
	 */
	public boolean isReleased() {
		LeaseLink current = this.link;
		return current != null && current.isReleased();
	}

	@Override
	public String toString() {
		// does not keep the token: logging an attempt must not add to what it retains
		return appendOwner(new StringBuilder().append(this.type).append(" '").append(this.key).append("' for "))
			.toString();
	}

	/**
	 * What an attempt knows of the core's lease it is for: it tells the lease that the
	 * backend {@link #reportLost reported} the lock gone, and asks whether the holder
	 * released it.
	 */
	public interface LeaseLink {

		/**
		 * The backend reported the lock gone; may come before the grant is answered, from
		 * any thread.
		 * @param reason what happened
		 */
		void lost(String reason);

		/**
		 * Whether the holder released the lease (a hold-at-least may keep the lock on the
		 * backend after that).
		 * @return {@code true} once released
		 */
		boolean isReleased();

	}

}
