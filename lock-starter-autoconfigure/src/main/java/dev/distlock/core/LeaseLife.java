package dev.distlock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The life of a {@link ManagedLease}: ACQUIRING → HELD → (LOST) → RELEASED, its hold count, and how a loss is told
 * (the host's events, {@link Lease#onLost lost callbacks}, an interrupt of the worker). State changes are
 * compare-and-set: a release never waits for a renewal in flight, and a loss can be reported from any thread. A base
 * class between the clock and the backend handle, so that a lease stays one object on the hot path.
 */
abstract class LeaseLife extends LeaseClock {

	static final int ACQUIRING = 0;

	static final int HELD = 1;

	static final int LOST = 2;

	static final int RELEASED = 3;

	private static final VarHandle STATE;

	private static final VarHandle HOLDS;

	private static final VarHandle OUTER_RELEASED;

	private static final VarHandle ENDED_LOCALLY;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(LeaseLife.class, "state", int.class);
			HOLDS = lookup.findVarHandle(LeaseLife.class, "holds", int.class);
			OUTER_RELEASED = lookup.findVarHandle(LeaseLife.class, "outerReleased", boolean.class);
			ENDED_LOCALLY = lookup.findVarHandle(LeaseLife.class, "endedLocally", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final LeaseHost host;

	private volatile int state = ACQUIRING;

	private volatile int holds = 1;

	private volatile boolean outerReleased;

	private volatile boolean endedLocally;

	private volatile @Nullable LostCallbacks lostCallbacks;

	private @Nullable Thread worker; // guarded by this

	private volatile @Nullable String lostReason;

	volatile boolean watched;

	LeaseLife(LeaseHost host, Duration lease) {
		super(lease);
		this.host = host;
	}

	/** This lease as the host knows it. */
	abstract ManagedLease<?> lease();

	abstract String key();

	abstract boolean isWatchdog();

	/** Releases the backend lock once, whoever asks first. */
	abstract void releaseBackend();

	/**
	 * Releases the backend lock (if nobody did yet) and ends the local side of the lease as soon as the release is
	 * sent ({@link #endLocally()}), so the next local thread may ask the backend while the reply is in flight.
	 */
	abstract void releaseBackendAndEnd();

	final void markHeld() {
		this.state = HELD;
	}

	final int state() {
		return this.state;
	}

	final @Nullable String lostReason() {
		return this.lostReason;
	}

	final boolean isLost() {
		return this.state == LOST;
	}

	/**
	 * Whether the lease was lost at some point, also when it was released afterwards (an operator's forced release,
	 * a shutdown): what the guarded work must be told when it ends.
	 * @return {@code true} once a loss was reported
	 */
	final boolean wasLost() {
		return this.lostReason != null;
	}

	/** Counts one more hold, unless the lease already ended. */
	final boolean addHold() {
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

	final void checkHeld() {
		int current = this.state;
		if (current == RELEASED) {
			throw new LockLostException("Lease of lock '" + key() + "' was already released");
		}
		if (current == LOST) {
			throw new LockLostException("Lease of lock '" + key() + "' was lost: " + this.lostReason);
		}
	}

	/**
	 * Marks the lease lost if its clock ran out.
	 * @param now the current nano time
	 * @return {@code true} if the lease is over (lost, released, or out of time now)
	 */
	@Override
	final boolean endIfExpired(long now) {
		int current = this.state;
		if (current == HELD && isOutOfTime(now)) {
			markLost("its lease of " + renewLease() + " ran out before it was "
					+ (isWatchdog() ? "renewed" : "released"));
			return true;
		}
		return current == LOST || current == RELEASED;
	}

	@Override
	final boolean renewable() {
		return isWatchdog() && this.state == HELD;
	}

	@Override
	final void renewedNotice() {
		this.host.renewed(lease());
	}

	// ---------------------------------------------------------------- loss

	@Override
	final void markLost(String reason) {
		if (!STATE.compareAndSet(this, HELD, LOST)) {
			return;
		}
		this.lostReason = reason;
		this.host.ended(lease());
		this.host.lost(lease(), reason);
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

	final void addLostCallback(Runnable callback) {
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
	}

	/** Asks the clock to fire this lease's loss when its time runs out (only needed when someone listens). */
	private void watch() {
		LeaseRenewer renewer = this.host.renewer();
		if (!this.watched && renewer != null && this.state == HELD) {
			renewer.watch(lease());
		}
	}

	/**
	 * Sets or clears the thread interrupted if the lease is lost. Once cleared, no interrupt can arrive any more, so
	 * none leaks to the next task of a pooled thread.
	 * @param worker the thread running the guarded work, or {@code null} when it is done
	 */
	final void worker(@Nullable Thread worker) {
		synchronized (this) {
			this.worker = worker;
		}
		if (worker != null) {
			watch();
		}
	}

	// ---------------------------------------------------------------- release

	/** The outermost hold's release; a second call does nothing. */
	final void releaseOuter() {
		if (OUTER_RELEASED.compareAndSet(this, false, true)) {
			releaseHold();
		}
	}

	/** An operator's release: ends the lease whatever its hold count. */
	final void forceRelease() {
		this.outerReleased = true;
		this.holds = 1;
		releaseHold();
	}

	final void releaseHold() {
		if ((int) HOLDS.getAndAdd(this, -1) > 1) {
			return;
		}
		int previous = (int) STATE.getAndSet(this, RELEASED);
		if (previous == RELEASED) {
			return;
		}
		try {
			if (previous == HELD) {
				// the local queue opens once the release is sent (ordered before the next local thread's request),
				// so the next local thread does not find the lock busy
				releaseBackendAndEnd();
			}
			else {
				releaseBackend();
			}
		}
		finally {
			if (previous == HELD) {
				endLocally();
			}
			this.host.released(lease(), System.nanoTime() - acquiredNanos());
		}
	}

	/** Ends the local side of a released lease (table, local queue, watch) once, whoever asks first. */
	final void endLocally() {
		if (ENDED_LOCALLY.compareAndSet(this, false, true)) {
			this.host.ended(lease());
		}
	}

	abstract long acquiredNanos();

}
