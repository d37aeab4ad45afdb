package dev.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.core.Lease;
import org.jspecify.annotations.Nullable;

/**
 * One term of leadership: from the grant of the group's lock to its revocation. The
 * term's {@link #fencingToken() fencing token} is greater than every earlier term's of
 * the group, so resources written with it (see {@code dev.distlock.fencing}) refuse a
 * former leader that still believes it leads. A term is {@link #isValid() valid} while it
 * was not revoked and its lease is valid by the lease's own clock.
 *
 * @since 0.1.0
 */
public final class LeaderTerm {

	private final String group;

	private final String candidateId;

	private final Lease lease;

	private final Instant grantedAt;

	private final AtomicReference<@Nullable String> revocation = new AtomicReference<>();

	private final CountDownLatch ended = new CountDownLatch(1);

	private volatile @Nullable Instant revokedAt;

	LeaderTerm(String group, String candidateId, Lease lease, Instant grantedAt) {
		this.group = group;
		this.candidateId = candidateId;
		this.lease = lease;
		this.grantedAt = grantedAt;
	}

	/**
	 * The leadership group.
	 * @return the group name
	 */
	public String group() {
		return this.group;
	}

	/**
	 * The candidate that leads in this term.
	 * @return the candidate's id
	 */
	public String candidateId() {
		return this.candidateId;
	}

	/**
	 * The term's fencing token: the token of the lease on the group's lock.
	 * @return the token
	 */
	public long fencingToken() {
		return this.lease.fencingToken();
	}

	/**
	 * The lease on the group's lock that this term holds; {@code @LeaderOnly} methods see
	 * it as {@link dev.distlock.core.LockContext#currentLease()}.
	 * @return the lease
	 */
	public Lease lease() {
		return this.lease;
	}

	/**
	 * When leadership was granted.
	 * @return the grant time
	 */
	public Instant grantedAt() {
		return this.grantedAt;
	}

	/**
	 * When the term ends unless its lease is renewed.
	 * @return the lease's estimated expiry
	 */
	public Instant expiresAt() {
		return this.lease.expiresAt();
	}

	/**
	 * Whether this candidate still leads in this term: not revoked, and the lease still
	 * valid by its own clock.
	 * @return {@code true} while leading
	 */
	public boolean isValid() {
		return this.revocation.get() == null && this.lease.isValid();
	}

	/**
	 * Why the term ended.
	 * @return the reason, or {@code null} while it lasts
	 */
	public @Nullable String revocationReason() {
		return this.revocation.get();
	}

	/**
	 * When the term was revoked: when the candidate learned that it ended (for a lease
	 * that ran out, the lease's {@link #expiresAt()} is earlier, and {@link #isValid()}
	 * turned false then).
	 * @return the revocation time, or {@code null} while the term lasts
	 */
	public @Nullable Instant revokedAt() {
		return this.revokedAt;
	}

	/** Ends the term; only the first call counts. */
	boolean revoke(String reason) {
		Instant now = Instant.now();
		if (this.revocation.compareAndSet(null, reason)) {
			this.revokedAt = now;
			this.ended.countDown();
			return true;
		}
		return false;
	}

	/**
	 * Time until only {@code keepNanos} of the lease are left by its clock, never
	 * negative.
	 */
	long nanosUntilOnly(long keepNanos) {
		return Math.max(0, Duration.between(Instant.now(), this.lease.expiresAt()).toNanos() - keepNanos);
	}

	/** Waits up to the given time for the term to end; {@code true} if it ended. */
	boolean awaitEnd(long nanos) throws InterruptedException {
		return this.ended.await(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public String toString() {
		return "LeaderTerm[group=" + this.group + ", candidate=" + this.candidateId + ", token=" + fencingToken()
				+ ", grantedAt=" + this.grantedAt
				+ ((this.revocation.get() != null) ? ", revoked: " + this.revocation.get() : "") + "]";
	}

}
