package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The core's lease: state machine HELD → (LOST) → RELEASED, renewal or expiry task on the shared
 * {@link LeaseRenewer}, re-entry count, lost callbacks. Renewal, extension, expiry checks and the switch to RELEASED
 * all run under {@link #renewLock}, which is what guarantees that no renewal is sent after a release; losing is a
 * lock-free compare-and-set so a backend's event thread can report a loss without waiting for a renewal in flight.
 */
final class ManagedLease implements Lease {

	private static final Log logger = LogFactory.getLog(ManagedLease.class);

	private static final int HELD = 0;

	private static final int LOST = 1;

	private static final int RELEASED = 2;

	private final LockTemplate template;

	private final LockProvider provider;

	private final LockAttempt attempt;

	private final HeldLock held;

	private final String key;

	// set once, right after construction and before the lease is published to other threads
	private @Nullable String name;

	private final boolean watchdog;

	private final Thread ownerThread;

	private final long acquiredNanos;

	private final Instant acquiredAt;

	private final @Nullable Runnable cleanup;

	private final AtomicInteger state = new AtomicInteger(HELD);

	private final AtomicInteger holds = new AtomicInteger(1);

	private final AtomicBoolean outerReleased = new AtomicBoolean();

	private final AtomicLong renewals = new AtomicLong();

	private final ReentrantLock renewLock = new ReentrantLock();

	private final List<Runnable> lostCallbacks = new CopyOnWriteArrayList<>();

	private volatile Duration renewLease;

	private volatile long expiryNanos;

	private volatile @Nullable ScheduledFuture<?> task;

	private volatile @Nullable Thread worker;

	private volatile @Nullable String lostReason;

	ManagedLease(LockTemplate template, LockProvider provider, LockAttempt attempt, HeldLock held, String key,
			boolean watchdog, long requestSentNanos, @Nullable Runnable cleanup) {
		this.template = template;
		this.provider = provider;
		this.attempt = attempt;
		this.held = held;
		this.key = key;
		this.watchdog = watchdog;
		this.ownerThread = Thread.currentThread();
		this.acquiredNanos = System.nanoTime();
		this.acquiredAt = Instant.now();
		this.cleanup = cleanup;
		this.renewLease = attempt.lease();
		// measured from when the request was sent: the backend started the lease no earlier than that
		this.expiryNanos = requestSentNanos + LockWaiter.saturatedNanos(attempt.lease());
	}

	void start(LeaseRenewer renewer, Duration watchdogInterval) {
		this.renewLock.lock();
		try {
			this.task = this.watchdog ? renewer.every(watchdogInterval, this::renewTick)
					: renewer.after(this.expiryNanos - System.nanoTime(), this::expiryTick);
		}
		finally {
			this.renewLock.unlock();
		}
		this.attempt.onLoss(this::markLost);
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public @Nullable String name() {
		return this.name;
	}

	void name(@Nullable String name) {
		this.name = name;
	}

	@Override
	public LockType type() {
		return this.attempt.type();
	}

	@Override
	public long fencingToken() {
		return this.held.fencingToken();
	}

	@Override
	public Instant expiresAt() {
		return Instant.now().plusNanos(this.expiryNanos - System.nanoTime());
	}

	@Override
	public boolean isValid() {
		return this.state.get() == HELD && this.expiryNanos - System.nanoTime() > 0;
	}

	String providerName() {
		return this.provider.name();
	}

	LockAttempt attempt() {
		return this.attempt;
	}

	Thread ownerThread() {
		return this.ownerThread;
	}

	Instant acquiredAt() {
		return this.acquiredAt;
	}

	long renewals() {
		return this.renewals.get();
	}

	boolean isWatchdog() {
		return this.watchdog;
	}

	@Nullable String lostReason() {
		return this.lostReason;
	}

	boolean isLost() {
		return this.state.get() == LOST;
	}

	/**
	 * Sets the thread to interrupt if the lease is lost under {@code on-lease-lost=interrupt}.
	 * @param worker the thread running the guarded work, or {@code null} when it is done
	 */
	void worker(@Nullable Thread worker) {
		this.worker = worker;
	}

	/**
	 * Counts one more hold by the owning thread.
	 * @return a view whose release counts the hold down, or {@code null} if the lease is already fully released
	 */
	@Nullable Lease reenter() {
		int count = this.holds.updateAndGet((h) -> (h == 0) ? 0 : h + 1);
		return (count == 0) ? null : new NestedLease(this);
	}

	@Override
	public void extend(Duration duration) {
		if (duration.isNegative() || duration.isZero()) {
			throw new LockConfigurationException("Lease extension must be positive, was " + duration);
		}
		boolean lost = false;
		this.renewLock.lock();
		try {
			checkHeld();
			long sent = System.nanoTime();
			boolean extended;
			try {
				extended = this.provider.renew(this.held, duration);
			}
			catch (Exception ex) {
				throw new DistributedLockException("Could not extend lease of lock '" + this.key + "'", ex);
			}
			if (extended) {
				this.expiryNanos = sent + LockWaiter.saturatedNanos(duration);
				this.renewals.incrementAndGet();
				if (this.watchdog) {
					if (duration.compareTo(this.renewLease) > 0) {
						this.renewLease = duration;
					}
				}
				else {
					cancelTask();
					this.task = this.template.renewer().after(this.expiryNanos - System.nanoTime(),
							this::expiryTick);
				}
			}
			else {
				lost = true;
			}
		}
		finally {
			this.renewLock.unlock();
		}
		if (lost) {
			markLost("the backend no longer holds it for this owner");
			throw new LockLostException("Could not extend lease of lock '" + this.key + "': " + this.lostReason);
		}
		this.template.fireRenewed(this);
	}

	private void checkHeld() {
		int current = this.state.get();
		if (current == RELEASED) {
			throw new LockLostException("Lease of lock '" + this.key + "' was already released");
		}
		if (current == LOST) {
			throw new LockLostException("Lease of lock '" + this.key + "' was lost: " + this.lostReason);
		}
	}

	private void renewTick() {
		boolean renewed = false;
		String loss = null;
		this.renewLock.lock();
		try {
			if (this.state.get() != HELD) {
				return;
			}
			long sent = System.nanoTime();
			Duration lease = this.renewLease;
			try {
				if (this.provider.renew(this.held, lease)) {
					this.expiryNanos = sent + LockWaiter.saturatedNanos(lease);
					this.renewals.incrementAndGet();
					renewed = true;
				}
				else {
					loss = "the backend no longer holds it for this owner (expired or deleted)";
				}
			}
			catch (Exception ex) {
				if (this.expiryNanos - System.nanoTime() <= 0) {
					loss = "renewal failed until the lease ran out: " + ex;
				}
				else if (logger.isDebugEnabled()) {
					logger.debug("Renewal of lock '" + this.key + "' failed; retrying while the lease lasts", ex);
				}
			}
		}
		finally {
			this.renewLock.unlock();
		}
		if (loss != null) {
			markLost(loss);
		}
		else if (renewed) {
			this.template.fireRenewed(this);
		}
	}

	private void expiryTick() {
		boolean expired = false;
		this.renewLock.lock();
		try {
			if (this.state.get() != HELD) {
				return;
			}
			long left = this.expiryNanos - System.nanoTime();
			if (left > 0) {
				this.task = this.template.renewer().after(left, this::expiryTick);
			}
			else {
				expired = true;
			}
		}
		finally {
			this.renewLock.unlock();
		}
		if (expired) {
			markLost("its lease of " + this.attempt.lease() + " ran out before it was released");
		}
	}

	void markLost(String reason) {
		if (!this.state.compareAndSet(HELD, LOST)) {
			return;
		}
		this.lostReason = reason;
		cancelTask();
		logger.warn("Lease of lock '" + this.key + "' (" + this.attempt.type() + ", token " + fencingToken()
				+ ") was lost: " + reason);
		this.template.fireLost(this, reason);
		for (Runnable callback : this.lostCallbacks) {
			// removal decides who runs it, so a callback added concurrently by onLost runs exactly once
			if (this.lostCallbacks.remove(callback)) {
				runCallback(callback);
			}
		}
		Thread target = this.worker;
		if (target != null && this.template.settings().onLeaseLost() == LockSettings.LeaseLostAction.INTERRUPT) {
			target.interrupt();
		}
	}

	private void runCallback(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Lost-lease callback of lock '" + this.key + "' failed", ex);
		}
	}

	@Override
	public Lease onLost(Runnable callback) {
		this.lostCallbacks.add(callback);
		// a loss that happened before the add may have missed it; run it here then, at most once
		if (this.state.get() == LOST && this.lostCallbacks.remove(callback)) {
			runCallback(callback);
		}
		return this;
	}

	@Override
	public void release() {
		if (this.outerReleased.compareAndSet(false, true)) {
			releaseHold();
		}
	}

	void forceRelease() {
		this.outerReleased.set(true);
		this.holds.set(1);
		releaseHold();
	}

	void releaseHold() {
		if (this.holds.decrementAndGet() > 0) {
			return;
		}
		int previous;
		this.renewLock.lock();
		try {
			previous = this.state.getAndSet(RELEASED);
			if (previous == RELEASED) {
				return;
			}
			cancelTask();
		}
		finally {
			this.renewLock.unlock();
		}
		try {
			this.provider.release(this.held);
		}
		catch (Exception ex) {
			logger.warn("Could not release lock '" + this.key + "' on " + this.provider.name()
					+ "; it frees itself when its lease ends", ex);
		}
		finally {
			if (this.cleanup != null) {
				this.cleanup.run();
			}
			this.template.fireReleased(this, System.nanoTime() - this.acquiredNanos);
		}
	}

	private void cancelTask() {
		ScheduledFuture<?> current = this.task;
		if (current != null) {
			current.cancel(false);
		}
	}

	@Override
	public String toString() {
		return "Lease[" + this.attempt + ", token=" + fencingToken() + ", state=" + this.state.get() + "]";
	}

	/** What an inner, re-entrant acquisition returns: the outer lease, with a release that only counts down. */
	private static final class NestedLease implements Lease {

		private final ManagedLease outer;

		private final AtomicBoolean released = new AtomicBoolean();

		NestedLease(ManagedLease outer) {
			this.outer = outer;
		}

		@Override
		public String key() {
			return this.outer.key();
		}

		@Override
		public @Nullable String name() {
			return this.outer.name();
		}

		@Override
		public LockType type() {
			return this.outer.type();
		}

		@Override
		public long fencingToken() {
			return this.outer.fencingToken();
		}

		@Override
		public Instant expiresAt() {
			return this.outer.expiresAt();
		}

		@Override
		public boolean isValid() {
			return !this.released.get() && this.outer.isValid();
		}

		@Override
		public void extend(Duration duration) {
			this.outer.extend(duration);
		}

		@Override
		public void release() {
			if (this.released.compareAndSet(false, true)) {
				this.outer.releaseHold();
			}
		}

		@Override
		public Lease onLost(Runnable callback) {
			this.outer.onLost(callback);
			return this;
		}

		ManagedLease outer() {
			return this.outer;
		}

		@Override
		public String toString() {
			return "Nested" + this.outer;
		}

	}

	static @Nullable ManagedLease unwrap(Lease lease) {
		if (lease instanceof ManagedLease managed) {
			return managed;
		}
		if (lease instanceof NestedLease nested) {
			return nested.outer();
		}
		return null;
	}

}
