package dev.distlock.zookeeper;

import java.time.Duration;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;

/**
 * A lock held through one ephemeral sequential node. The node's path is unique (sequence number plus Curator's
 * protection id) and never reused, so whoever knows the path owns the node and deleting it can never remove another
 * owner's node. The lease end is on this process's monotonic clock and serves only {@link FixedLeaseSweep}. State is
 * guarded by this object's monitor.
 */
final class ZooKeeperHeldLock implements HeldLock {

	private final LockAttempt attempt;

	private final String path;

	private final long fencingToken;

	private Duration lease;

	private long expiryNanos;

	private boolean finished;

	ZooKeeperHeldLock(LockAttempt attempt, String path, long fencingToken, long leaseStartNanos) {
		this.attempt = attempt;
		this.path = path;
		this.fencingToken = fencingToken;
		this.lease = attempt.lease();
		this.expiryNanos = leaseStartNanos + saturatedNanos(this.lease);
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 4;
		}
	}

	LockAttempt attempt() {
		return this.attempt;
	}

	String path() {
		return this.path;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	synchronized Duration lease() {
		return this.lease;
	}

	synchronized boolean isFinished() {
		return this.finished;
	}

	/**
	 * Ends the hold (released or lost); only the first call returns {@code true}.
	 * @return whether the hold was live
	 */
	synchronized boolean finish() {
		if (this.finished) {
			return false;
		}
		this.finished = true;
		return true;
	}

	/**
	 * Ends the hold if its lease has run out.
	 * @param nowNanos the current nano time
	 * @return {@code true} if the hold ended now
	 */
	synchronized boolean expireIfDue(long nowNanos) {
		if (this.finished || this.expiryNanos - nowNanos > 0) {
			return false;
		}
		this.finished = true;
		return true;
	}

	/**
	 * Moves the lease end after a successful renewal.
	 * @param sentNanos when the renewal was sent
	 * @param newLease the renewed lease
	 * @return {@code false} if the hold ended meanwhile (the renewal came too late)
	 */
	synchronized boolean renewed(long sentNanos, Duration newLease) {
		if (this.finished) {
			return false;
		}
		this.lease = newLease;
		this.expiryNanos = sentNanos + saturatedNanos(newLease);
		return true;
	}

	@Override
	public String toString() {
		return "ZooKeeperHeldLock[" + this.path + ", token=" + this.fencingToken + "]";
	}

}
