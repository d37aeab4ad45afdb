package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The time side of a {@link ManagedLease}: when its backend lease ends at the earliest ({@link #expiryNanos()},
 * counted from when the granting or renewing request was sent, what validity is judged by) and at the latest
 * (counted from when the answer came, what decides that an extension is too late), and the watchdog's renewal
 * bookkeeping. A base class rather than a field, so that a lease stays one object on the hot path.
 */
abstract class LeaseClock {

	private static final Log logger = LogFactory.getLog(LeaseClock.class);

	private volatile long expiryNanos;

	private volatile long latestEndNanos;

	private volatile Duration renewLease;

	private volatile long renewals;

	private volatile long renewSentNanos;

	private volatile boolean renewing;

	LeaseClock(Duration lease) {
		this.renewLease = lease;
	}

	/** The lease was granted by a request sent at {@code sentNanos}, answered at {@code answeredNanos}. */
	final void startClock(long sentNanos, long answeredNanos) {
		long lease = LockWaiter.saturatedNanos(this.renewLease);
		this.renewSentNanos = sentNanos;
		this.expiryNanos = sentNanos + lease;
		this.latestEndNanos = answeredNanos + lease;
	}

	final long expiryNanos() {
		return this.expiryNanos;
	}

	final Instant expiryInstant() {
		return Instant.now().plusNanos(this.expiryNanos - System.nanoTime());
	}

	final boolean isOutOfTime(long now) {
		return now - this.expiryNanos >= 0;
	}

	/** Past even the latest end the backend lease can have. */
	final boolean isSurelyOver(long now) {
		return now - this.latestEndNanos >= 0;
	}

	final Duration renewLease() {
		return this.renewLease;
	}

	final long renewals() {
		return this.renewals;
	}

	/** An extension sent at {@code sentNanos} succeeded: the lease now runs {@code duration} from then. */
	final void extended(long sentNanos, Duration duration, boolean watchdog) {
		this.expiryNanos = sentNanos + LockWaiter.saturatedNanos(duration);
		this.latestEndNanos = System.nanoTime() + LockWaiter.saturatedNanos(duration);
		this.renewSentNanos = sentNanos;
		this.renewals++;
		if (watchdog && duration.compareTo(this.renewLease) > 0) {
			this.renewLease = duration;
		}
	}

	// ---------------------------------------------------------------- watchdog renewal (the clock's side)

	/** Whether the watchdog renews this lease (and it is still held). */
	abstract boolean renewable();

	/** Marks the lease lost if its time ran out; {@code true} if it is over. */
	abstract boolean endIfExpired(long now);

	abstract void markLost(String reason);

	/** Tells listeners the lease was renewed. */
	abstract void renewedNotice();

	final boolean renewalDue(long now, long intervalNanos) {
		return renewable() && !this.renewing && now - this.renewSentNanos >= intervalNanos;
	}

	final Duration startRenewal(long sentNanos) {
		this.renewing = true;
		this.renewSentNanos = sentNanos;
		return this.renewLease;
	}

	/**
	 * The backend answered a renewal sent at {@code sentNanos}. An answer after the lease ran out counts as lost: the
	 * backend may have given the lock away in between. The end only ever moves forward.
	 */
	final void renewalAnswered(boolean renewed, long sentNanos, Duration lease) {
		this.renewing = false;
		if (endIfExpired(System.nanoTime())) {
			return;
		}
		if (!renewed) {
			markLost("the backend no longer holds it for this owner (expired or deleted)");
			return;
		}
		long expiry = sentNanos + LockWaiter.saturatedNanos(lease);
		if (expiry - this.expiryNanos > 0) {
			this.expiryNanos = expiry;
			this.latestEndNanos = System.nanoTime() + LockWaiter.saturatedNanos(lease);
		}
		this.renewals++;
		renewedNotice();
	}

	/** A renewal failed with an unknown outcome; the clock tries again while the lease lasts. */
	final void renewalFailed(Exception ex) {
		this.renewing = false;
		if (logger.isDebugEnabled()) {
			logger.debug("Renewal of a lease failed; retrying while the lease lasts", ex);
		}
	}

}
