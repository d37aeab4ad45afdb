package dev.distlock.core.internal;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A lease's clock: when the lease ends by the backend's reckoning, counted from when the
 * granting request or the last answered renewal was sent, and the bookkeeping of the
 * renewals and extensions in flight. A renewal answered after the lease ran out counts as
 * lost, and while renewals and extensions overlap the lease ends at the earliest end any
 * of them can have set, so the local end is never later than the backend's.
 * <p>
 * {@link ManagedLease} extends it, so that a lease stays one object: nothing more is
 * allocated per acquisition. The clock knows nothing of the lease's states; it asks
 * {@link #isRenewable()} and reports through {@link #endIfExpired(long)},
 * {@link #markLost(String)} and {@link #renewedOnBackend()}.
 */
abstract class LeaseClock {

	private static final Log logger = LogFactory.getLog(LeaseClock.class);

	private volatile long expiryNanos;

	private volatile long latestEndNanos;

	private volatile Duration renewLease;

	private volatile long renewals;

	private volatile long renewSentNanos;

	private volatile boolean renewing;

	// renewals and extensions in flight together: the backend may apply them in either
	// order, whatever order their answers come back in, so while they overlap the lease
	// ends at the earliest end any of them can have set
	private int extensionsInFlight; // guarded by this

	private long overlapEndNanos; // guarded by this

	private boolean overlapped; // guarded by this

	/**
	 * Creates the clock of a lease that asks the backend for {@code backendLease}.
	 * @param backendLease the lease set on the backend
	 */
	LeaseClock(Duration backendLease) {
		this.renewLease = backendLease;
	}

	/**
	 * The lock's key, for messages.
	 * @return the key
	 */
	abstract String key();

	/**
	 * Whether the watchdog renews the lease now: a watchdog lease still held.
	 * @return {@code true} if renewals are due at intervals
	 */
	abstract boolean isRenewable();

	/**
	 * Marks the lease lost if its clock ran out.
	 * @param now the current nano time
	 * @return {@code true} if the lease is over (lost, released, or out of time now)
	 */
	abstract boolean endIfExpired(long now);

	/**
	 * Marks the lease lost, once.
	 * @param reason what happened
	 */
	abstract void markLost(String reason);

	/** A renewal succeeded while the lease was held. */
	abstract void renewedOnBackend();

	/**
	 * The clock starts: the lease runs from when the granting request was sent and at the
	 * latest from when its answer came.
	 */
	final void start(long sentNanos, long answeredNanos) {
		long lease = Timing.saturatedNanos(this.renewLease);
		this.renewSentNanos = sentNanos;
		this.expiryNanos = sentNanos + lease;
		this.latestEndNanos = answeredNanos + lease;
	}

	/**
	 * When the lease ends, on the {@link System#nanoTime()} scale.
	 * @return the end
	 */
	public long expiryNanos() {
		return this.expiryNanos;
	}

	final Duration renewLease() {
		return this.renewLease;
	}

	final long renewals() {
		return this.renewals;
	}

	final boolean isOutOfTime(long now) {
		return now - this.expiryNanos >= 0;
	}

	/**
	 * Whether {@code now} is past even the latest end the backend lease can have, counted
	 * from when the last answer came: too late to extend it.
	 */
	final boolean isPastLatestEnd(long now) {
		return now - this.latestEndNanos >= 0;
	}

	final boolean renewalDue(long now, long intervalNanos) {
		return isRenewable() && !this.renewing && now - this.renewSentNanos >= intervalNanos;
	}

	/**
	 * When the clock should look at this lease next: its end, or its next watchdog
	 * renewal if that comes first (in the past while a renewal is in flight too long).
	 */
	final long nextLookNanos(long intervalNanos) {
		long next = this.expiryNanos;
		if (isRenewable()) {
			long due = this.renewSentNanos + intervalNanos;
			if (due - next < 0) {
				next = due;
			}
		}
		return next;
	}

	final Duration startRenewal(long sentNanos) {
		this.renewing = true;
		this.renewSentNanos = sentNanos;
		Duration lease = this.renewLease;
		sending(sentNanos + Timing.saturatedNanos(lease));
		return lease;
	}

	/**
	 * The backend answered a renewal sent at {@code sentNanos}. An answer after the lease
	 * ran out counts as lost: the backend may have given the lock away in between. The
	 * end only ever moves forward.
	 */
	final void renewalAnswered(boolean renewed, long sentNanos, Duration lease, long answeredNanos) {
		this.renewing = false;
		long leaseNanos = Timing.saturatedNanos(lease);
		if (endIfExpired(answeredNanos)) {
			answered(false, sentNanos + leaseNanos, leaseNanos);
			return;
		}
		answered(renewed, sentNanos + leaseNanos, leaseNanos);
		if (!renewed) {
			markLost("the backend no longer holds it for this owner (expired or deleted)");
			return;
		}
		this.renewals++;
		renewedOnBackend();
	}

	/**
	 * A renewal failed with an unknown outcome; the clock tries again while the lease
	 * lasts.
	 */
	final void renewalFailed(Exception ex) {
		Duration lease = this.renewLease;
		answered(false, this.renewSentNanos + Timing.saturatedNanos(lease), Timing.saturatedNanos(lease));
		this.renewing = false;
		if (logger.isDebugEnabled()) {
			logger.debug("Renewal of lease of lock '" + key() + "' failed; retrying while the lease lasts", ex);
		}
	}

	/**
	 * An extension to {@code duration} is about to be sent.
	 * @return its end, if the backend grants it
	 */
	final long extensionSent(long sentNanos, Duration duration) {
		long end = sentNanos + Timing.saturatedNanos(duration);
		sending(end);
		return end;
	}

	/** The extension that would end the lease at {@code end} was answered (or failed). */
	final void extensionAnswered(boolean extended, long end, Duration duration) {
		answered(extended, end, Timing.saturatedNanos(duration));
	}

	/**
	 * An owner-checked extension sent at {@code sentNanos} succeeded while the lease was
	 * held, which proves nobody held the lock in between: it counts as a renewal, and a
	 * watchdog lease renews for the longer of its lease and the extension from then on.
	 */
	final void extended(long sentNanos, Duration duration, boolean watchdog) {
		this.renewSentNanos = sentNanos;
		this.renewals++;
		if (watchdog && duration.compareTo(this.renewLease) > 0) {
			this.renewLease = duration;
		}
	}

	/**
	 * A renewal or extension that would end the lease at {@code end} is about to be sent.
	 */
	private synchronized void sending(long end) {
		if (this.extensionsInFlight == 0) {
			this.overlapEndNanos = end;
			this.overlapped = false;
		}
		else {
			this.overlapEndNanos = Math.min(this.overlapEndNanos, end);
			this.overlapped = true;
		}
		this.extensionsInFlight++;
	}

	/**
	 * A renewal or extension that would end the lease at {@code end} was answered (or
	 * failed, {@code renewed} then {@code false}). Alone, a success sets the end the
	 * backend set. Overlapping others, the end becomes the earliest any of them can have
	 * set, even if that is earlier than now: the local end must never be later than the
	 * backend's.
	 */
	private synchronized void answered(boolean renewed, long end, long leaseNanos) {
		this.extensionsInFlight--;
		if (renewed) {
			this.expiryNanos = this.overlapped ? Math.min(this.overlapEndNanos, end) : end;
			long latest = System.nanoTime() + leaseNanos;
			if (latest - this.latestEndNanos > 0) {
				this.latestEndNanos = latest;
			}
		}
	}

}
