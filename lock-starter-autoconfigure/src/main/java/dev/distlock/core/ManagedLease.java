package dev.distlock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The core's lease and its clock: ACQUIRING → HELD → (LOST) → RELEASED. Validity is judged by the lease's own clock
 * (its expiry, counted from when the granting request or the last answered renewal was sent), never only by a flag
 * a timer sets, so a fixed lease needs no timer at all. State changes are compare-and-set: a release never waits for
 * a renewal in flight, and a loss can be reported from any thread. The lease knows nothing above it; it tells its
 * {@link LeaseHost} when it ends.
 *
 * @param <H> the backend's handle type
 */
final class ManagedLease<H extends HeldLock> extends LeaseClock implements Lease {

	private static final Log logger = LogFactory.getLog(ManagedLease.class);

	static final int ACQUIRING = 0;

	static final int HELD = 1;

	static final int LOST = 2;

	static final int RELEASED = 3;

	private static final VarHandle STATE;

	private static final VarHandle HOLDS;

	private static final VarHandle OUTER_RELEASED;

	private static final VarHandle BACKEND_RELEASED;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(ManagedLease.class, "state", int.class);
			HOLDS = lookup.findVarHandle(ManagedLease.class, "holds", int.class);
			OUTER_RELEASED = lookup.findVarHandle(ManagedLease.class, "outerReleased", boolean.class);
			BACKEND_RELEASED = lookup.findVarHandle(ManagedLease.class, "backendReleased", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final LeaseHost host;

	private final LockProvider<H> provider;

	private final LockAttempt attempt;

	private final LockRequest request;

	private final boolean watchdog;

	private final Thread ownerThread;

	private @Nullable H held; // set once by granted(), before the lease is published

	private long acquiredNanos;

	private volatile int state = ACQUIRING;

	private volatile int holds = 1;

	private volatile boolean outerReleased;

	private volatile boolean backendReleased;

	private volatile @Nullable LostCallbacks lostCallbacks;

	private @Nullable Thread worker; // guarded by this

	private volatile @Nullable String lostReason;

	volatile boolean watched;

	/** The local queue place this lease holds, if any; owned by {@link LocalQueue}. */
	LocalQueue.@Nullable Slot slot;

	ManagedLease(LeaseHost host, LockProvider<H> provider, LockAttempt attempt, LockRequest request,
			boolean watchdog) {
		super(attempt.lease());
		this.host = host;
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
		startClock(sentNanos, this.acquiredNanos);
		this.state = HELD;
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
		return this.state == HELD && !isOutOfTime(System.nanoTime());
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

	long acquiredNanos() {
		return this.acquiredNanos;
	}

	boolean isWatchdog() {
		return this.watchdog;
	}

	int state() {
		return this.state;
	}

	@Nullable String lostReason() {
		return this.lostReason;
	}

	boolean isLost() {
		return this.state == LOST;
	}

	/**
	 * Counts one more hold by the owning thread.
	 * @return a view whose release counts the hold down, or {@code null} if the lease already ended
	 */
	@Nullable Lease reenter() {
		int current;
		do {
			current = this.holds;
			if (current == 0 || this.state != HELD) {
				return null;
			}
		}
		while (!HOLDS.compareAndSet(this, current, current + 1));
		return new NestedLease(this);
	}

	/**
	 * The loss to report when the guarded work ends: a loss already known, or a lease whose clock ran out.
	 * @return the exception, or {@code null} if the lease is still valid
	 */
	@Nullable LockLostException lossAtEnd() {
		if (this.state == HELD && isOutOfTime(System.nanoTime())) {
			markLost("its lease of " + renewLease() + " ran out before the work ended");
		}
		if (this.state != LOST) {
			return null;
		}
		return new LockLostException("Lease of lock '" + key() + "' (" + type() + ", token " + fencingToken()
				+ ") was lost while held: " + this.lostReason + "; another holder may have run at the same time");
	}

	/**
	 * Marks the lease lost if its clock ran out.
	 * @param now the current nano time
	 * @return {@code true} if the lease is over (lost, released, or out of time now)
	 */
	@Override
	boolean endIfExpired(long now) {
		int current = this.state;
		if (current == HELD && isOutOfTime(now)) {
			markLost("its lease of " + renewLease() + " ran out before it was "
					+ (this.watchdog ? "renewed" : "released"));
			return true;
		}
		return current == LOST || current == RELEASED;
	}

	/**
	 * Marks the lease lost if its clock ran out and, if so, releases it on the backend on the calling thread (owner
	 * checked, so a successor's lock is never touched): what a local waiter taking over does before it acquires.
	 */
	boolean endIfExpiredAndRelease(long now) {
		boolean over = endIfExpired(now);
		if (over && this.state == LOST) {
			releaseBackend();
		}
		return over;
	}

	/** Releases the backend lock once, whoever asks first (the holder, a waiter taking over, the clean-up). */
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
			logger.warn("Could not release lock '" + key() + "' on " + this.provider.name()
					+ "; it frees itself when its lease ends", ex);
		}
	}

	@Override
	public void extend(Duration duration) {
		if (duration.isNegative() || duration.isZero()) {
			throw new LockConfigurationException("Lease extension must be positive, was " + duration);
		}
		long sent = System.nanoTime();
		if (this.state == HELD && isSurelyOver(sent)) {
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
		else if (this.state == HELD) {
			// an owner-checked renewal that succeeded proves nobody held the lock in between
			extended(sent, duration, this.watchdog);
			this.host.renewed(this);
			return;
		}
		throw new LockLostException("Could not extend lease of lock '" + key() + "': " + this.lostReason);
	}

	private void checkHeld() {
		int current = this.state;
		if (current == RELEASED) {
			throw new LockLostException("Lease of lock '" + key() + "' was already released");
		}
		if (current == LOST) {
			throw new LockLostException("Lease of lock '" + key() + "' was lost: " + this.lostReason);
		}
	}

	@Override
	boolean renewable() {
		return this.watchdog && this.state == HELD;
	}

	@Override
	void renewedNotice() {
		this.host.renewed(this);
	}

	// ---------------------------------------------------------------- loss

	@Override
	void markLost(String reason) {
		if (!STATE.compareAndSet(this, HELD, LOST)) {
			return;
		}
		this.lostReason = reason;
		this.host.ended(this);
		this.host.lost(this, reason);
		LostCallbacks callbacks = this.lostCallbacks;
		if (callbacks != null) {
			callbacks.fire();
		}
		if (this.host.interruptOnLoss()) {
			synchronized (this) {
				if (this.worker != null) {
					this.worker.interrupt();
				}
			}
		}
	}

	@Override
	public Lease onLost(Runnable callback) {
		LostCallbacks callbacks;
		synchronized (this) {
			callbacks = this.lostCallbacks;
			if (callbacks == null) {
				callbacks = new LostCallbacks(key());
				this.lostCallbacks = callbacks;
			}
		}
		watch();
		callbacks.add(callback, this.state == LOST);
		return this;
	}

	/** Asks the clock to fire this lease's loss when its time runs out (only needed when someone listens). */
	private void watch() {
		LeaseRenewer renewer = this.host.renewer();
		if (!this.watched && renewer != null && this.state == HELD) {
			renewer.watch(this);
		}
	}

	/**
	 * Sets or clears the thread interrupted if the lease is lost. Once cleared, no interrupt can arrive any more, so
	 * none leaks to the next task of a pooled thread.
	 * @param worker the thread running the guarded work, or {@code null} when it is done
	 */
	void worker(@Nullable Thread worker) {
		synchronized (this) {
			this.worker = worker;
		}
		if (worker != null) {
			watch();
		}
	}

	// ---------------------------------------------------------------- release

	@Override
	public void release() {
		if (OUTER_RELEASED.compareAndSet(this, false, true)) {
			releaseHold();
		}
	}

	/** An operator's release: ends the lease whatever its hold count. */
	void forceRelease() {
		this.outerReleased = true;
		this.holds = 1;
		releaseHold();
	}

	void releaseHold() {
		if ((int) HOLDS.getAndAdd(this, -1) > 1) {
			return;
		}
		int previous = (int) STATE.getAndSet(this, RELEASED);
		if (previous == RELEASED) {
			return;
		}
		try {
			releaseBackend();
		}
		finally {
			// the local queue opens after the backend release, so the next local thread does not find it busy
			if (previous == HELD) {
				this.host.ended(this);
			}
			this.host.released(this, System.nanoTime() - this.acquiredNanos);
		}
	}

	@Override
	public String toString() {
		return "Lease[" + this.attempt + ", token=" + fencingToken() + ", state=" + this.state + "]";
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
