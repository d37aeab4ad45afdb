package dev.distlock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The core's lease: a backend's granted lock ({@code H}) with its clock ({@link LeaseClock}) and its life
 * ({@link LeaseLife}). Validity is judged by the lease's own clock (its expiry, counted from when the granting request
 * or the last answered renewal was sent), never only by a flag a timer sets, so a fixed lease needs no timer at all.
 * The lease knows nothing above it; it tells its {@link LeaseHost} when it ends.
 *
 * @param <H> the backend's handle type
 */
final class ManagedLease<H extends HeldLock> extends LeaseLife implements Lease {

	private static final Log logger = LogFactory.getLog(ManagedLease.class);

	private static final VarHandle BACKEND_RELEASED;

	private static final VarHandle HOLD_END;

	static {
		try {
			BACKEND_RELEASED = MethodHandles.lookup()
				.findVarHandle(ManagedLease.class, "backendReleased", boolean.class);
			HOLD_END = MethodHandles.lookup().findVarHandle(ManagedLease.class, "holdEndNanos", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final LockProvider<H> provider;

	private final LockAttempt attempt;

	private final LockRequest request;

	private final boolean watchdog;

	private final Thread ownerThread;

	private @Nullable H held; // set once by granted(), before the lease is published

	private long acquiredNanos;

	private volatile boolean backendReleased;

	/** Until when a release keeps the lock on the backend ({@link HoldAtLeast}); raised by extensions. */
	private volatile long holdEndNanos;

	/** The local queue place this lease holds, if any; owned by {@link LocalQueue}. */
	LocalQueue.@Nullable Slot slot;

	ManagedLease(LeaseHost host, LockProvider<H> provider, LockAttempt attempt, LockRequest request,
			boolean watchdog) {
		super(host, attempt.lease());
		this.provider = provider;
		this.attempt = attempt;
		this.request = request;
		this.watchdog = watchdog;
		this.ownerThread = Thread.currentThread();
	}

	/** The backend granted the lock; the lease runs from when the granting request was sent. */
	void granted(H held, long sentNanos) {
		this.held = held;
		this.acquiredNanos = System.nanoTime();
		Duration hold = this.request.holdAtLeast();
		this.holdEndNanos = this.acquiredNanos + ((hold != null) ? LockWaiter.saturatedNanos(hold) : 0);
		startClock(sentNanos, this.acquiredNanos);
		markHeld();
	}

	@Override
	ManagedLease<?> lease() {
		return this;
	}

	@Override
	public String key() {
		return this.request.key();
	}

	@Override
	public @Nullable String name() {
		return this.request.name();
	}

	@Override
	public LockType type() {
		return this.attempt.type();
	}

	@Override
	public long fencingToken() {
		H lock = this.held;
		return (lock != null) ? lock.fencingToken() : 0;
	}

	@Override
	public Instant expiresAt() {
		return expiryInstant();
	}

	@Override
	public boolean isValid() {
		return state() == HELD && !isOutOfTime(System.nanoTime());
	}

	LockProvider<H> provider() {
		return this.provider;
	}

	LockAttempt attempt() {
		return this.attempt;
	}

	LockRequest request() {
		return this.request;
	}

	H held() {
		H lock = this.held;
		if (lock == null) {
			throw new IllegalStateException("Lease of lock '" + key() + "' was never granted");
		}
		return lock;
	}

	Thread ownerThread() {
		return this.ownerThread;
	}

	@Override
	long acquiredNanos() {
		return this.acquiredNanos;
	}

	long holdEndNanos() {
		return this.holdEndNanos;
	}

	@Override
	boolean isWatchdog() {
		return this.watchdog;
	}

	/**
	 * Counts one more hold by the owning thread.
	 * @return a view whose release counts the hold down, or {@code null} if the lease already ended
	 */
	@Nullable Lease reenter() {
		return addHold() ? new NestedLease(this) : null;
	}

	/**
	 * The loss to report when the guarded work ends: a loss already known, or a lease whose clock ran out.
	 * @return the exception, or {@code null} if the lease is still valid
	 */
	@Nullable LockLostException lossAtEnd() {
		if (state() == HELD && isOutOfTime(System.nanoTime())) {
			markLost("its lease of " + renewLease() + " ran out before the work ended");
		}
		if (!wasLost()) {
			return null;
		}
		return new LockLostException("Lease of lock '" + key() + "' (" + type() + ", token " + fencingToken()
				+ ") was lost while held: " + lostReason() + "; another holder may have run at the same time");
	}

	/**
	 * Marks the lease lost if its clock ran out and, if so, releases it on the backend on the calling thread (owner
	 * checked, so a successor's lock is never touched): what a local waiter taking over does before it acquires.
	 */
	boolean endIfExpiredAndRelease(long now) {
		boolean over = endIfExpired(now);
		if (over && state() == LOST) {
			releaseBackend();
		}
		return over;
	}

	@Override
	void releaseBackend() {
		if (!BACKEND_RELEASED.compareAndSet(this, false, true)) {
			return;
		}
		try {
			if (!HoldAtLeast.keep(this)) {
				this.provider.release(held());
			}
		}
		catch (Exception ex) {
			releaseFailed(ex);
		}
	}

	@Override
	void releaseBackendAndEnd() {
		if (!BACKEND_RELEASED.compareAndSet(this, false, true)) {
			return;
		}
		try {
			if (!HoldAtLeast.keep(this)) {
				this.provider.release(held(), this::endLocally);
			}
		}
		catch (Exception ex) {
			releaseFailed(ex);
		}
	}

	private void releaseFailed(Exception ex) {
		logger.warn("Could not release lock '" + key() + "' on " + this.provider.name()
				+ "; it frees itself when its lease ends", ex);
	}

	@Override
	public void extend(Duration duration) {
		if (duration.isNegative() || duration.isZero()) {
			throw new LockConfigurationException("Lease extension must be positive, was " + duration);
		}
		long sent = System.nanoTime();
		if (state() == HELD && isSurelyOver(sent)) {
			// past even the latest end the backend lease can have: too late to extend
			markLost("its lease of " + renewLease() + " ran out before it was extended");
			releaseBackend();
		}
		checkHeld();
		boolean extended;
		try {
			extended = this.provider.renew(held(), duration);
		}
		catch (Exception ex) {
			throw new DistributedLockException("Could not extend lease of lock '" + key() + "'", ex);
		}
		if (!extended) {
			markLost("the backend no longer holds it for this owner");
		}
		else if (state() == HELD) {
			// an owner-checked renewal that succeeded proves nobody held the lock in between
			extended(sent, duration, this.watchdog);
			this.host.renewed(this);
			return;
		}
		throw new LockLostException("Could not extend lease of lock '" + key() + "': " + lostReason());
	}

	@Override
	public void extend(Duration duration, Duration holdAtLeast) {
		HoldAtLeast.validate(key(), holdAtLeast, duration);
		extend(duration);
		// measured once the extension is granted, so the hold is never shorter than asked
		long end = System.nanoTime() + LockWaiter.saturatedNanos(holdAtLeast);
		long current;
		do {
			current = this.holdEndNanos;
		}
		while (end - current > 0 && !HOLD_END.compareAndSet(this, current, end));
	}

	@Override
	public Lease onLost(Runnable callback) {
		addLostCallback(callback);
		return this;
	}

	@Override
	public void release() {
		releaseOuter();
	}

	@Override
	public String toString() {
		return "Lease[" + this.attempt + ", token=" + fencingToken() + ", state=" + state() + "]";
	}

	/** Set when the lock was taken only to be given back (a multi-key acquisition that failed): no hold applies. */
	volatile boolean releaseAtOnce;

	static @Nullable ManagedLease<?> unwrap(Lease lease) {
		if (lease instanceof ManagedLease<?> managed) {
			return managed;
		}
		if (lease instanceof NestedLease nested) {
			return nested.outer();
		}
		return null;
	}

}
