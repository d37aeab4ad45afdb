package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;

/**
 * A lock held through one ephemeral sequential node. The node's path is unique (sequence number plus Curator's
 * protection id) and never reused, so whoever knows the path owns the node and deleting it can never remove another
 * owner's node. The lease end is on this process's monotonic clock; an expiry check on the provider's scheduler ends
 * the hold when it passes. State is guarded by this object's monitor.
 */
final class ZooKeeperHeldLock implements HeldLock {

	private final LockAttempt attempt;

	private final String path;

	private final long fencingToken;

	private final ScheduledExecutorService scheduler;

	private final Consumer<ZooKeeperHeldLock> onExpiry;

	private Duration lease;

	private long expiryNanos;

	private boolean checkScheduled;

	private long checkAtNanos;

	private boolean finished;

	ZooKeeperHeldLock(LockAttempt attempt, String path, long fencingToken, long leaseStartNanos,
			ScheduledExecutorService scheduler, Consumer<ZooKeeperHeldLock> onExpiry) {
		this.attempt = attempt;
		this.path = path;
		this.fencingToken = fencingToken;
		this.scheduler = scheduler;
		this.onExpiry = onExpiry;
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

	/** Starts watching the lease end. */
	synchronized void startExpiry() {
		scheduleCheck(this.expiryNanos);
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
		scheduleCheck(this.expiryNanos);
		return true;
	}

	private void scheduleCheck(long atNanos) {
		if (this.checkScheduled && atNanos - this.checkAtNanos >= 0) {
			// the pending check comes first and re-schedules itself for the later end
			return;
		}
		this.checkScheduled = true;
		this.checkAtNanos = atNanos;
		try {
			this.scheduler.schedule(this::check, Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the provider is closed: the node now lives as long as the session
		}
	}

	private void check() {
		synchronized (this) {
			if (this.finished) {
				return;
			}
			this.checkScheduled = false;
			if (this.expiryNanos - System.nanoTime() > 0) {
				scheduleCheck(this.expiryNanos);
				return;
			}
			this.finished = true;
		}
		this.onExpiry.accept(this);
	}

	@Override
	public String toString() {
		return "ZooKeeperHeldLock[" + this.path + ", token=" + this.fencingToken + "]";
	}

}
