package dev.distlock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What the core asks a backend for: a lock on {@link #key()} of {@link #type()} for {@link #owner()}, with a backend
 * lease of {@link #lease()}. The owner token is unique across processes and is the only identity the backend should
 * store and compare (never a thread id). A backend that later learns the lock is gone without being asked (a
 * ZooKeeper session ended, a connection holding a database lock died) calls {@link #reportLost(String)}.
 *
 * @since 0.1.0
 */
public final class LockAttempt {

	private final String key;

	private final LockType type;

	private final int permits;

	private final Duration lease;

	private final String ownerPrefix;

	private final long ownerSequence;

	private final long deadlineNanos;

	private @Nullable String owner; // built on first use: in-JVM backends never need the string

	private volatile long sentNanos;

	private volatile boolean sentMarked;

	private volatile @Nullable ManagedLease<?> boundLease;

	private volatile @Nullable String lostReason;

	/**
	 * Creates an attempt; the core does this, backends' tests may too.
	 * @param key the full key (with prefix)
	 * @param type the lock type
	 * @param permits the permits of a SEMAPHORE, else 1
	 * @param lease the backend lease to set
	 * @param owner the unique owner token
	 */
	public LockAttempt(String key, LockType type, int permits, Duration lease, String owner) {
		this(key, type, permits, lease, owner, -1, System.nanoTime() + DEFAULT_CALL_BUDGET_NANOS);
	}

	LockAttempt(String key, LockType type, int permits, Duration lease, String ownerPrefix, long ownerSequence,
			long deadlineNanos) {
		this.key = key;
		this.type = type;
		this.permits = permits;
		this.lease = lease;
		this.ownerPrefix = ownerPrefix;
		this.ownerSequence = ownerSequence;
		this.deadlineNanos = deadlineNanos;
	}

	private static final long DEFAULT_CALL_BUDGET_NANOS = 1_000_000_000L;

	/**
	 * The full key, prefix included. Treat it as data: never splice it into a script, a query or a path unescaped.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	public LockType type() {
		return this.type;
	}

	public int permits() {
		return this.permits;
	}

	/**
	 * The lease to set on the backend; the core renews it when the caller asked for no fixed lease.
	 * @return the lease
	 */
	public Duration lease() {
		return this.lease;
	}

	/**
	 * The latest moment, on the {@link System#nanoTime()} scale, at which any backend call made for this acquisition
	 * may return: the wait's deadline plus {@code distlock.call-timeout}. A backend bounds each of its calls by it
	 * (a command timeout, {@code Connection.setNetworkTimeout}, a future's {@code get(timeout)}), whatever the client
	 * library's own timeouts are, and treats a call cut off there as one whose outcome is unknown. An attempt created
	 * through the public constructor has one second.
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
	 * Records that a request that may grant the lock is about to be sent. The lease's expiry is measured from the
	 * last such mark, because the backend cannot have started the lease earlier. The core's wait loop marks every
	 * attempt; a backend that owns its waiting must call this before each request that may grant the lock (if it
	 * never does, the core measures from when {@code acquire} returned, which is later by up to one round trip).
	 */
	public void markSent() {
		this.sentNanos = System.nanoTime();
		this.sentMarked = true;
	}

	long sentNanos(long fallback) {
		return this.sentMarked ? this.sentNanos : fallback;
	}

	/**
	 * Tells the core that the lock granted to this attempt is gone. Safe to call from any thread, at any time, more
	 * than once; only the first call counts.
	 * @param reason what happened, for logs and the {@link LockLostException} message
	 */
	public void reportLost(String reason) {
		if (this.lostReason == null) {
			this.lostReason = reason;
			ManagedLease<?> current = this.boundLease;
			if (current != null) {
				current.markLost(reason);
			}
		}
	}

	/**
	 * Whether the holder already released the lease granted to this attempt. A backend that still holds the lock
	 * then keeps it only for a hold-at-least ({@link LockRequest#holdAtLeast()}) and must leave it to the end of that
	 * hold: a doubt about its connection is no reason to delete it, since there is no holder left to tell.
	 * @return {@code true} once the lease was released
	 */
	public boolean isReleased() {
		ManagedLease<?> current = this.boundLease;
		return current != null && current.state() == LeaseLife.RELEASED;
	}

	void bind(ManagedLease<?> lease) {
		this.boundLease = lease;
		String reason = this.lostReason;
		if (reason != null) {
			lease.markLost(reason);
		}
	}

	@Override
	public String toString() {
		return this.type + " '" + this.key + "' for " + owner();
	}

}
