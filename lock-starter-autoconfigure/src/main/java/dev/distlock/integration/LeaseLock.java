package dev.distlock.integration;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Lock} view of one distlock MUTEX, for code written against {@code Lock}
 * (Redisson's {@code RLock}, a {@code ReentrantLock}) that should move without rewriting
 * its call sites. Unlike a {@link Lease}, it is owned by the thread that locked it, as
 * {@code Lock} requires: only that thread may {@link #unlock()}, and it re-enters without
 * a backend call, the lock being released when its outermost hold ends. Every hold is a
 * lease of the {@link LockTemplate}, with its watchdog, local queueing and fencing token:
 * {@link #lease()} gives the calling thread's lease.
 * <p>
 * A hold whose lease was lost while held (renewal failed, a fixed lease ran out) is not
 * re-entered: the next {@code tryLock} of its thread returns {@code false} (and
 * {@code lock} throws), and ends that hold, so the attempt after it acquires anew;
 * {@link #unlock()} of a lost hold throws {@link IllegalStateException}. Conditions are
 * not supported. Thread-safe.
 *
 * @since 0.3.0
 */
public class LeaseLock implements Lock {

	/**
	 * One round of the unbounded wait of {@code lock()}, which tries again after each:
	 * backends turn a wait into their own timeouts (PostgreSQL's {@code lock_timeout}
	 * stops at about 24 days).
	 */
	private static final Duration WAIT_ROUND = Duration.ofHours(1);

	private final LockTemplate template;

	private final LockRequest request;

	private volatile @Nullable Thread owner;

	/**
	 * Written only by the owner thread, read by others only after {@link #owner} shows
	 * they own it.
	 */
	private @Nullable Lease lease;

	private int holds;

	/**
	 * Creates a view of the MUTEX on {@code key} with the template's default lease (the
	 * watchdog unless {@code distlock.default-lease} is set).
	 * @param template the lock template
	 * @param key the lock key
	 */
	public LeaseLock(LockTemplate template, String key) {
		this(template, LockRequest.of(key));
	}

	/**
	 * Creates a view of the requested lock; its wait time is replaced by each call's.
	 * @param template the lock template
	 * @param request what to lock: a MUTEX or FAIR lock, of one key
	 * @throws IllegalArgumentException if the request is of another type or of several
	 * keys
	 */
	public LeaseLock(LockTemplate template, LockRequest request) {
		if (!request.type().isExclusive() || !request.type().isReentrant() || request.isMultiKey()) {
			throw new IllegalArgumentException("A Lock view needs an exclusive, re-entrant lock of one key, not "
					+ request.type() + " on " + request.keys());
		}
		this.template = template;
		this.request = request;
	}

	/**
	 * The key this lock guards.
	 * @return the key
	 */
	public String key() {
		return this.request.key();
	}

	/**
	 * The lease of the calling thread's hold: its {@link Lease#fencingToken() fencing
	 * token} is what the protected resource should check.
	 * @return the lease, or empty if the calling thread does not hold this lock
	 */
	public Optional<Lease> lease() {
		return isHeldByCurrentThread() ? Optional.ofNullable(this.lease) : Optional.empty();
	}

	/**
	 * Whether the calling thread holds this lock (its lease may since have been lost).
	 * @return {@code true} if it does
	 */
	public boolean isHeldByCurrentThread() {
		return this.owner == Thread.currentThread();
	}

	/**
	 * Acquires the lock, waiting as long as it takes; an interrupt while waiting is kept
	 * and set again on return.
	 * @throws dev.distlock.core.LockAcquisitionException if the backend failed
	 * @throws IllegalStateException if the calling thread's hold was lost
	 */
	@Override
	public void lock() {
		lockWithLease(null);
	}

	/**
	 * Acquires the lock with a fixed lease, waiting as long as it takes.
	 * @param lease the fixed lease, or {@code null} for the template's default
	 * @throws dev.distlock.core.LockAcquisitionException if the backend failed
	 * @throws IllegalStateException if the calling thread's hold was lost
	 */
	protected void lockWithLease(@Nullable Duration lease) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					acquireWithoutTimeout(lease);
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquireWithoutTimeout(null);
	}

	private void acquireWithoutTimeout(@Nullable Duration lease) throws InterruptedException {
		boolean reentry = isHeldByCurrentThread();
		while (!acquire(WAIT_ROUND, lease)) {
			if (reentry) {
				throw new IllegalStateException("Lock '" + key() + "' was lost while the calling thread held it: "
						+ "its hold is ended, lock again to acquire it anew");
			}
		}
	}

	/**
	 * Acquires the lock if it is free now (or re-enters it). An interrupted thread gets
	 * {@code false} and keeps its interrupt: the backend call it would make is itself
	 * interruptible.
	 * @return {@code true} if the calling thread holds the lock now
	 */
	@Override
	public boolean tryLock() {
		try {
			return acquire(Duration.ZERO, null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return acquire(Duration.ofNanos(unit.toNanos(Math.max(time, 0))), null);
	}

	/**
	 * Acquires the lock within {@code wait}, or re-enters it.
	 * @param wait how long to wait
	 * @param lease a fixed lease, or {@code null} for the request's
	 * @return {@code true} if the calling thread holds the lock now; {@code false} if the
	 * wait ran out, or if the calling thread's hold was lost (that hold is then ended)
	 * @throws InterruptedException if the thread was interrupted while waiting
	 */
	protected boolean acquire(Duration wait, @Nullable Duration lease) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (isHeldByCurrentThread()) {
			Lease held = this.lease;
			if (held != null && held.isValid()) {
				this.holds++;
				return true;
			}
			end();
			return false;
		}
		LockRequest.Builder builder = this.request.toBuilder().waitTime(wait);
		if (lease != null) {
			builder.lease(lease);
		}
		Optional<Lease> acquired;
		try {
			acquired = this.template.tryAcquire(builder.build());
		}
		catch (LockAcquisitionException ex) {
			if (ex.getCause() instanceof InterruptedException) {
				throw new InterruptedException("Interrupted while waiting for lock '" + key() + "'");
			}
			throw ex;
		}
		if (acquired.isEmpty()) {
			return false;
		}
		this.lease = acquired.get();
		this.holds = 1;
		this.owner = Thread.currentThread();
		return true;
	}

	/**
	 * Ends one hold of the calling thread; the outermost releases the lease.
	 * @throws IllegalMonitorStateException if the calling thread does not hold the lock
	 * @throws IllegalStateException if the lease was lost while held (the hold is ended
	 * all the same)
	 */
	@Override
	public void unlock() {
		if (!isHeldByCurrentThread()) {
			throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by " + Thread.currentThread());
		}
		if (--this.holds > 0) {
			return;
		}
		Lease held = this.lease;
		boolean valid = held != null && held.isValid();
		end();
		if (!valid) {
			throw new IllegalStateException("Lock '" + key() + "' was lost while held (" + held
					+ "): another holder may have run at the same time");
		}
	}

	private void end() {
		Lease held = this.lease;
		this.lease = null;
		this.holds = 0;
		this.owner = null;
		if (held != null) {
			held.release();
		}
		holdEnded();
	}

	/**
	 * Called on the thread whose last hold of this lock ends, by {@link #unlock()} or
	 * when its hold is found lost, after the hold record is gone (the calling thread no
	 * longer {@link #isHeldByCurrentThread() holds} it). Does nothing; subclasses may
	 * override it to track holders.
	 */
	protected void holdEnded() {
	}

	/**
	 * Not supported: a distributed lock has no condition queue.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Lock '" + key() + "' is a distributed lock: it has no conditions; "
				+ "use a LatchTemplate latch, or a condition of a local lock held under it");
	}

	@Override
	public String toString() {
		Thread current = this.owner;
		return "LeaseLock[" + key() + ((current != null) ? ", held by " + current.getName() : ", free") + "]";
	}

}
