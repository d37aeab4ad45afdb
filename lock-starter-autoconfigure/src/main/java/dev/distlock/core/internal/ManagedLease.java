package dev.distlock.core.internal;

import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.Lease;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The core's lease: a backend's granted lock ({@code H}) with its life, its hold count
 * and its release. Validity is judged by the lease's own clock ({@link LeaseClock}, the
 * superclass), never only by a flag a timer sets, so a fixed lease needs no timer at all.
 * State changes are compare-and-set: a release never waits for a renewal in flight, and a
 * loss can be reported from any thread. The lease knows nothing above it: it tells its
 * {@link LeaseHost} when it ends, and holds its {@link LocalQueue} place only as the
 * queue's {@link LocalQueue.Holder}.
 * <p>
 * Its states are the constants {@link #ACQUIRING}, {@link #HELD}, {@link #LOST} and
 * {@link #RELEASED} (docs/core.md draws them); what happens once on the way out is a flag
 * each, set by compare-and-set: the user's release ({@code outerReleased}), the local end
 * ({@code endedLocally}: table, queue place, watch) and the backend release
 * ({@code backendReleased}, {@code backendReleaseDone}). These stay in one class with the
 * hold count because every transition reads them together (a release decides from the
 * state it replaces whether the backend is released and the place opened), and a lease is
 * one object per acquisition: the clock is a superclass, not a field, for the same
 * reason.
 *
 * @param <H> the backend's handle type
 */
final class ManagedLease<H extends HeldLock> extends LeaseClock
		implements EngineLease, LocalQueue.Holder, LockAttempt.LeaseLink {

	private static final Log logger = LogFactory.getLog(ManagedLease.class);

	/** Asked of the backend, not granted yet; becomes HELD when granted. */
	static final int ACQUIRING = 0;

	/**
	 * Granted and valid by its clock; becomes LOST when its clock runs out or the backend
	 * reports it gone, RELEASED when its last hold ends.
	 */
	static final int HELD = 1;

	/**
	 * Lost while held (the work must be told); becomes RELEASED when its last hold ends,
	 * its backend lock released in the background meanwhile.
	 */
	static final int LOST = 2;

	/** Ended: its last hold was released (or an operator forced it); final. */
	static final int RELEASED = 3;

	private static final VarHandle STATE;

	private static final VarHandle HOLDS;

	private static final VarHandle OUTER_RELEASED;

	private static final VarHandle ENDED_LOCALLY;

	private static final VarHandle BACKEND_RELEASED;

	private static final VarHandle WATCHED;

	private static final VarHandle SLOT;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(ManagedLease.class, "state", int.class);
			HOLDS = lookup.findVarHandle(ManagedLease.class, "holds", int.class);
			OUTER_RELEASED = lookup.findVarHandle(ManagedLease.class, "outerReleased", boolean.class);
			ENDED_LOCALLY = lookup.findVarHandle(ManagedLease.class, "endedLocally", boolean.class);
			BACKEND_RELEASED = lookup.findVarHandle(ManagedLease.class, "backendReleased", boolean.class);
			WATCHED = lookup.findVarHandle(ManagedLease.class, "watched", boolean.class);
			SLOT = lookup.findVarHandle(ManagedLease.class, "slot", LocalQueue.Slot.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final LeaseHost<ManagedLease<?>> host;

	private final LockProvider<H> provider;

	private final LockAttempt attempt;

	private final LockRequest request;

	private final boolean watchdog;

	private final Thread ownerThread;

	private final long releaseBoundNanos;

	private @Nullable H held; // set once by granted(), before the lease is published

	private long acquiredNanos;

	// ---------------------------------------------------------------- life

	private volatile int state = ACQUIRING;

	private volatile int holds = 1;

	private volatile boolean outerReleased;

	private volatile boolean endedLocally;

	private volatile boolean backendReleased;

	/**
	 * Whether the backend release, once begun, is done (sent, for an asynchronous one).
	 */
	private volatile boolean backendReleaseDone;

	/** Whether a thread waits for {@link #backendReleaseDone} (then it is notified). */
	private volatile boolean backendReleaseAwaited;

	private volatile boolean watched;

	private volatile boolean published;

	private volatile boolean releaseAtOnce;

	/**
	 * Until when a release keeps the lock on the backend ({@link HoldAtLeast}); raised by
	 * extensions.
	 */
	private volatile long holdEndNanos;

	private volatile @Nullable String reportedLoss;

	private volatile @Nullable String lostReason;

	private volatile @Nullable LostCallbacks lostCallbacks;

	private @Nullable Thread worker; // guarded by this

	private volatile LocalQueue.@Nullable Slot slot;

	// the lease table's list (LeaseTable), guarded by the table's stripe

	@Nullable ManagedLease<?> tablePrev;

	@Nullable ManagedLease<?> tableNext;

	volatile @Nullable Object tableStripe;

	// the lease clock's schedule (LeaseRenewer), touched by the clock's task only

	@Nullable ManagedLease<?> clockPrev;

	@Nullable ManagedLease<?> clockNext;

	@Nullable Object clockSlot;

	/**
	 * Creates the lease of one acquisition, with the attempt the backend is asked with.
	 * @param host what the lease reports to
	 * @param provider the backend
	 * @param request what was asked for
	 * @param fullKey the key with {@code distlock.key-prefix}
	 * @param backendLease the lease to set on the backend
	 * @param ownerPrefix this engine's owner prefix, unique across processes
	 * @param ownerSequence this acquisition's number, appended to the prefix to make the
	 * owner token
	 * @param callDeadline when every backend call of the acquisition must have returned
	 * @param callTimeout how long one backend call may take
	 * ({@code distlock.call-timeout}): the bound of a release retried after an interrupt
	 * @param watchdog whether the watchdog renews the lease
	 */
	ManagedLease(LeaseHost<ManagedLease<?>> host, LockProvider<H> provider, LockRequest request, String fullKey,
			Duration backendLease, String ownerPrefix, long ownerSequence, long callDeadline, Duration callTimeout,
			boolean watchdog) {
		super(backendLease);
		this.host = host;
		this.provider = provider;
		this.request = request;
		this.attempt = new LockAttempt(fullKey, request.type(), request.permits(), backendLease, ownerPrefix,
				ownerSequence, callDeadline, this);
		this.watchdog = watchdog;
		this.ownerThread = Thread.currentThread();
		this.releaseBoundNanos = Timing.saturatedNanos(callTimeout);
	}

	/**
	 * The backend granted the lock; the lease runs from when the granting request was
	 * sent ({@code sentNanos}) and at the latest from {@code now}, when the answer came.
	 */
	void granted(H held, long sentNanos, long now) {
		this.held = held;
		this.acquiredNanos = now;
		start(sentNanos, now);
		Duration hold = this.request.holdAtLeast();
		this.holdEndNanos = this.acquiredNanos + ((hold != null) ? Timing.saturatedNanos(hold) : 0);
		this.state = HELD;
	}

	/**
	 * The acquisition is complete: the lease is in the table, its queue place and its
	 * watch are set. A loss the backend reported before ({@link #reportedLost}) is
	 * applied now, so that it ends the lease through its host.
	 */
	void published() {
		this.published = true;
		String loss = this.reportedLoss;
		if (loss != null) {
			markLost(loss);
		}
	}

	/**
	 * The backend reported the lock gone ({@link LockAttempt#reportLost(String)}), maybe
	 * before it was published.
	 */
	@Override
	public void lost(String reason) {
		this.reportedLoss = reason;
		if (this.published) {
			markLost(reason);
		}
	}

	@Override
	public boolean isReleased() {
		return this.state == RELEASED;
	}

	// ---------------------------------------------------------------- engine

	LockProvider<H> provider() {
		return this.provider;
	}

	LockAttempt attempt() {
		return this.attempt;
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

	/**
	 * Whether the lease was lost at some point, also when it was released afterwards (an
	 * operator's forced release, a shutdown): what the guarded work must be told when it
	 * ends.
	 * @return {@code true} once a loss was reported
	 */
	boolean wasLost() {
		return this.lostReason != null;
	}

	// ---------------------------------------------------------------- Lease

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
		return Instant.now().plusNanos(expiryNanos() - System.nanoTime());
	}

	@Override
	public boolean isValid() {
		return this.state == HELD && !isOutOfTime(System.nanoTime());
	}

	@Override
	public void extend(Duration duration) {
		LockRequest.checkLease(duration, (setting) -> "Lease extension");
		long sent = System.nanoTime();
		if (this.state == HELD && isPastLatestEnd(sent)) {
			markLost("its lease of " + renewLease() + " ran out before it was extended");
			releaseBackend();
		}
		checkHeld();
		long end = extensionSent(sent, duration);
		boolean extended = false;
		try {
			extended = this.provider.renew(held(), duration);
		}
		catch (Exception ex) {
			throw new DistributedLockException("Could not extend lease of lock '" + key() + "'", ex);
		}
		finally {
			extensionAnswered(extended, end, duration);
		}
		if (!extended) {
			markLost("the backend no longer holds it for this owner");
		}
		else if (this.state == HELD) {
			extended(sent, duration, this.watchdog);
			if (this.watched) {
				// the end moved, perhaps closer: the clock looks at the lease again
				this.host.watch(this);
			}
			this.host.renewed(this);
			return;
		}
		throw new LockLostException("Could not extend lease of lock '" + key() + "': " + this.lostReason);
	}

	@Override
	public void extend(Duration duration, Duration holdAtLeast) {
		HoldAtLeast.check(key(), holdAtLeast, duration);
		extend(duration);
		// measured once the extension is granted, so the hold is never shorter than asked
		long end = System.nanoTime() + Timing.saturatedNanos(holdAtLeast);
		synchronized (this) {
			if (end - this.holdEndNanos > 0) {
				this.holdEndNanos = end;
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

	@Override
	public void release() {
		if (OUTER_RELEASED.compareAndSet(this, false, true)) {
			releaseHold();
		}
	}

	// ---------------------------------------------------------------- EngineLease

	@Override
	public @Nullable LockLostException lossAtEnd() {
		if (this.state == HELD && isOutOfTime(System.nanoTime())) {
			markLost("its lease of " + renewLease() + " ran out before the work ended");
		}
		if (!wasLost()) {
			return null;
		}
		return new LockLostException("Lease of lock '" + key() + "' (" + type() + ", token " + fencingToken()
				+ ") was lost while held: " + this.lostReason + "; another holder may have run at the same time");
	}

	@Override
	public void forEachHeld(Consumer<Lease> action) {
		action.accept(this);
	}

	@Override
	public boolean isOuterHold() {
		return true;
	}

	// ---------------------------------------------------------------- holds

	/**
	 * Counts one more hold by the owning thread, unless the lease already ended.
	 * @return {@code true} if the hold was added
	 */
	boolean addHold() {
		int current;
		do {
			current = this.holds;
			if (current == 0 || this.state != HELD) {
				return false;
			}
		}
		while (!HOLDS.compareAndSet(this, current, current + 1));
		return true;
	}

	/** An operator's release: ends the lease whatever its hold count. */
	void forceRelease() {
		this.outerReleased = true;
		this.holds = 1;
		releaseHold();
	}

	/** Ends one hold; the last one releases the lease. */
	void releaseHold() {
		if ((int) HOLDS.getAndAdd(this, -1) > 1) {
			return;
		}
		int previous = (int) STATE.getAndSet(this, RELEASED);
		if (previous == RELEASED) {
			return;
		}
		try {
			if (previous == HELD) {
				// the local queue opens once the release is sent (ordered before the next
				// local thread's request), so the next local thread does not find the
				// lock busy
				releaseBackend(true);
			}
			else {
				releaseBackend();
			}
		}
		finally {
			if (previous == HELD) {
				endLocally();
			}
			this.host.released(this, System.nanoTime() - this.acquiredNanos);
		}
	}

	/**
	 * The lock was taken only to be given back (a multi-key acquisition that failed): no
	 * hold-at-least applies.
	 */
	void releaseWithoutHold() {
		this.releaseAtOnce = true;
		release();
	}

	/** Releases the backend lock once, whoever asks first. */
	void releaseBackend() {
		releaseBackend(false);
	}

	private void releaseBackend(boolean endWhenSent) {
		if (!BACKEND_RELEASED.compareAndSet(this, false, true)) {
			return;
		}
		// a release from an interrupted thread (a cancelled task or subscription,
		// shutdownNow, distlock.on-lease-lost=interrupt) is carried out all the same, and
		// the interrupt is kept for the caller: client libraries give up a request whose
		// wait is interrupted (Lettuce skips a cancelled command its event loop has not
		// written yet, Redisson throws), which would leave the lock taken until its lease
		// ends. An interrupt that arrives while the release runs is cleared and the
		// release sent again, within the call timeout.
		boolean interrupted = Thread.interrupted();
		long deadline = System.nanoTime() + this.releaseBoundNanos;
		try {
			while (true) {
				try {
					releaseOnBackend(endWhenSent);
					break;
				}
				catch (Exception ex) {
					boolean interruptedNow = Thread.interrupted() | causedByInterrupt(ex);
					interrupted |= interruptedNow;
					if (!interruptedNow || System.nanoTime() - deadline >= 0) {
						logger.warn("Could not release lock '" + key() + "' on " + this.provider.name()
								+ "; it frees itself when its lease ends", ex);
						break;
					}
					if (logger.isDebugEnabled()) {
						logger.debug("Release of lock '" + key() + "' was interrupted; sending it again", ex);
					}
				}
			}
		}
		finally {
			this.backendReleaseDone = true;
			if (this.backendReleaseAwaited) {
				synchronized (this) {
					notifyAll();
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void releaseOnBackend(boolean endWhenSent) throws Exception {
		// no hold-at-least (its end is not past the grant): nothing to keep and no clock
		// to read
		if (this.releaseAtOnce || this.holdEndNanos - this.acquiredNanos <= 0
				|| !HoldAtLeast.keep(this.provider, held(), this.holdEndNanos)) {
			if (endWhenSent) {
				this.provider.release(held(), this::endLocally);
			}
			else {
				this.provider.release(held());
			}
		}
	}

	/**
	 * Whether a backend call failed because its thread was interrupted: the
	 * {@link InterruptedException} itself or a client's exception caused by one
	 * (Lettuce's {@code RedisCommandInterruptedException}, Redisson's, a closed
	 * interruptible channel).
	 */
	private static boolean causedByInterrupt(Throwable failure) {
		int depth = 0;
		for (Throwable cause = failure; cause != null && depth < 16; cause = cause.getCause(), depth++) {
			if (cause instanceof InterruptedException || cause instanceof InterruptedIOException
					|| cause instanceof ClosedByInterruptException) {
				return true;
			}
		}
		return false;
	}

	@Override
	public void releaseBackendOrAwait() {
		releaseBackend();
		if (this.backendReleaseDone) {
			return;
		}
		// the release runs on another thread, bounded by the backend's bound on a
		// release; an interrupt is kept for the caller
		boolean interrupted = false;
		this.backendReleaseAwaited = true;
		synchronized (this) {
			while (!this.backendReleaseDone) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Ends the local side of a released lease (table, local queue, watch) once, whoever
	 * asks first.
	 */
	private void endLocally() {
		if (ENDED_LOCALLY.compareAndSet(this, false, true)) {
			this.host.ended(this);
		}
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

	// ---------------------------------------------------------------- loss

	/** Marks the lease lost, once, and tells whoever listens. */
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

	/**
	 * Sets or clears the thread interrupted if the lease is lost. Once cleared, no
	 * interrupt can arrive any more, so none leaks to the next task of a pooled thread.
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

	/**
	 * Asks the clock to fire this lease's loss when its time runs out (only needed when
	 * someone listens).
	 */
	private void watch() {
		if (this.state == HELD && WATCHED.compareAndSet(this, false, true)) {
			this.host.watch(this);
		}
	}

	/**
	 * The lease clock watches this lease from the start (a watchdog lease, or a backend
	 * that never expires).
	 */
	void watchedFromStart() {
		this.watched = true;
	}

	boolean isWatched() {
		return this.watched;
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
	 * Marks the lease lost if its clock ran out and, if so, releases it on the backend on
	 * the calling thread (owner checked, so a successor's lock is never touched): what a
	 * local waiter taking over does before it acquires.
	 */
	void endIfExpiredAndRelease(long now) {
		if (endIfExpired(now) && this.state == LOST) {
			releaseBackend();
		}
	}

	// ---------------------------------------------------------------- clock

	@Override
	boolean isRenewable() {
		return this.watchdog && this.state == HELD;
	}

	@Override
	void renewedOnBackend() {
		this.host.renewed(this);
	}

	// ---------------------------------------------------------------- LocalQueue.Holder

	@Override
	public boolean isHeld() {
		return this.state == HELD;
	}

	void slot(LocalQueue.Slot slot) {
		this.slot = slot;
	}

	/**
	 * Takes the lease's local queue place away from it, once.
	 * @return the place, or {@code null} if it has none (any more)
	 */
	LocalQueue.@Nullable Slot takeSlot() {
		return (this.slot != null) ? (LocalQueue.Slot) SLOT.getAndSet(this, null) : null;
	}

	@Override
	public String toString() {
		return "Lease[" + this.attempt + ", token=" + fencingToken() + ", state=" + this.state + "]";
	}

}
