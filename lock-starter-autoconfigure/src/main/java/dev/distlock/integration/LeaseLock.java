package dev.distlock.integration;

import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import dev.distlock.core.Lease;
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
 * Each thread's hold is its own record (its lease and its count): a thread never sees,
 * re-enters or releases another thread's lease, also when its own lease was lost and the
 * lock has passed to another thread of the same object.
 * <p>
 * A hold whose lease was lost while held (renewal failed, a fixed lease ran out) is not
 * re-entered: the next {@code tryLock} of its thread returns {@code false} (and
 * {@code lock} throws), and ends that hold, so the attempt after it acquires anew;
 * {@link #unlock()} of a lost hold throws {@link IllegalStateException}, and
 * {@code unlock()} by a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException}. {@link #lockInterruptibly()} and
 * {@link #tryLock(long, TimeUnit)} throw {@link InterruptedException} with the interrupt
 * status cleared, also when the backend's client reports the interrupt its own way.
 * Conditions are not supported. Thread-safe.
 *
 * @since 0.3.0
 */
public class LeaseLock implements Lock {

	/**
	 * One round of the unbounded wait of {@code lock()}, which tries again after each, so
	 * that a wait never rests on one backend call for longer than an hour.
	 */
	private static final Duration WAIT_ROUND = Duration.ofHours(1);

	private final LockTemplate template;

	private final LockRequest request;

	/** Each holding thread's hold; a thread reads and changes only its own. */
	private final ConcurrentHashMap<Thread, Hold> holds = new ConcurrentHashMap<>();

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
		Hold hold = this.holds.get(Thread.currentThread());
		return (hold != null) ? Optional.of(hold.lease) : Optional.empty();
	}

	/**
	 * Whether the calling thread holds this lock (its lease may since have been lost).
	 * @return {@code true} if it does
	 */
	public boolean isHeldByCurrentThread() {
		return this.holds.containsKey(Thread.currentThread());
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
	 * Acquires the lock with a fixed lease, waiting as long as it takes; an interrupt
	 * while waiting is kept and set again on return.
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

	/**
	 * Acquires the lock, waiting as long as it takes unless interrupted.
	 * @throws InterruptedException if the thread was interrupted on entry or while
	 * waiting (its interrupt status is then cleared)
	 * @throws dev.distlock.core.LockAcquisitionException if the backend failed
	 * @throws IllegalStateException if the calling thread's hold was lost
	 */
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
	 * Acquires the lock if it is free now (or re-enters it). As with
	 * {@code ReentrantLock}, an interrupted thread is not refused for its interrupt: it
	 * may acquire, never gets an {@link InterruptedException}, and keeps its interrupt
	 * status. An interrupt that arrives during the backend call makes it return
	 * {@code false}.
	 * @return {@code true} if the calling thread holds the lock now
	 */
	@Override
	public boolean tryLock() {
		boolean interrupted = Thread.interrupted();
		try {
			return acquire(Duration.ZERO, null);
		}
		catch (InterruptedException ex) {
			interrupted = true;
			return false;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Acquires the lock within the given time, or re-enters it.
	 * @param time how long to wait
	 * @param unit the unit of {@code time}
	 * @return {@code true} if the calling thread holds the lock now; {@code false} if the
	 * time ran out, or if the calling thread's hold was lost (that hold is then ended)
	 * @throws InterruptedException if the thread was interrupted on entry or while
	 * waiting (its interrupt status is then cleared)
	 */
	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return acquire(Duration.ofNanos(unit.toNanos(Math.max(time, 0))), null);
	}

	/**
	 * Acquires the lock within {@code wait}, or re-enters it: what every acquisition of
	 * this lock goes through.
	 * @param wait how long to wait
	 * @param lease a fixed lease, or {@code null} for the request's
	 * @return {@code true} if the calling thread holds the lock now; {@code false} if the
	 * wait ran out, or if the calling thread's hold was lost (that hold is then ended)
	 * @throws InterruptedException if the thread was interrupted on entry or while
	 * waiting, however the backend's client reported it (its interrupt status is then
	 * cleared)
	 */
	protected boolean acquire(Duration wait, @Nullable Duration lease) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException("Interrupted before acquiring lock '" + key() + "'");
		}
		Thread current = Thread.currentThread();
		Hold hold = this.holds.get(current);
		if (hold != null) {
			if (hold.lease.isValid()) {
				hold.count++;
				return true;
			}
			end(current, hold);
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
		catch (RuntimeException ex) {
			boolean interruptedStatus = Thread.interrupted();
			if (interruptedStatus || isInterrupt(ex)) {
				InterruptedException interrupted = new InterruptedException(
						"Interrupted while waiting for lock '" + key() + "'");
				interrupted.initCause(ex);
				throw interrupted;
			}
			throw ex;
		}
		if (acquired.isEmpty()) {
			// a client that gave up its wait for an interrupt and only kept the status
			if (Thread.interrupted()) {
				throw new InterruptedException("Interrupted while waiting for lock '" + key() + "'");
			}
			return false;
		}
		// granted: the hold stands, and an interrupt that came meanwhile stays set
		this.holds.put(current, new Hold(acquired.get()));
		return true;
	}

	/**
	 * Whether a failure is an interrupt reported as another exception: an
	 * {@link InterruptedException} (or an interrupted channel) somewhere in its cause
	 * chain, as the engine and the clients wrap it.
	 */
	private static boolean isInterrupt(Throwable failure) {
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < 16; depth++) {
			if (cause instanceof InterruptedException || cause instanceof ClosedByInterruptException) {
				return true;
			}
			cause = cause.getCause();
		}
		return false;
	}

	/**
	 * Ends one hold of the calling thread; the outermost releases the lease.
	 * @throws IllegalMonitorStateException if the calling thread does not hold the lock
	 * @throws IllegalStateException if the lease was lost while held (the hold is ended
	 * all the same)
	 */
	@Override
	public void unlock() {
		Thread current = Thread.currentThread();
		Hold hold = this.holds.get(current);
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by " + current);
		}
		if (--hold.count > 0) {
			return;
		}
		boolean valid = hold.lease.isValid();
		end(current, hold);
		if (!valid) {
			throw new IllegalStateException("Lock '" + key() + "' was lost while held (" + hold.lease
					+ "): another holder may have run at the same time");
		}
	}

	/** Ends the calling thread's hold: its record goes, then its lease is released. */
	private void end(Thread current, Hold hold) {
		this.holds.remove(current, hold);
		try {
			hold.lease.release();
		}
		finally {
			holdEnded();
		}
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

	/**
	 * The key and the threads holding this lock in this object: usually one, or none; a
	 * thread whose lease was lost is listed until its hold ends.
	 */
	@Override
	public String toString() {
		StringJoiner holders = new StringJoiner(", ", ", held by ", "");
		holders.setEmptyValue(", free");
		for (Thread holder : this.holds.keySet()) {
			holders.add(holder.getName());
		}
		return "LeaseLock[" + key() + holders + "]";
	}

	/**
	 * One thread's hold: its lease and its count, the count read and changed by that
	 * thread only.
	 */
	private static final class Hold {

		final Lease lease;

		int count = 1;

		Hold(Lease lease) {
			this.lease = lease;
		}

	}

}
