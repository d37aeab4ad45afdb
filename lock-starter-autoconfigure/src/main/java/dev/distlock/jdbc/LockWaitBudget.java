package dev.distlock.jdbc;

import java.time.Duration;

/**
 * How long the statements of one acquire attempt may wait for row locks: until the
 * acquisition's deadline, but at least a floor, so that a try-once (no wait left) still
 * waits out another attempt's millisecond transaction, while a client stalled in a
 * transaction on the same rows delays it by no more than that.
 */
final class LockWaitBudget {

	private final long deadlineNanos;

	private final long floorMillis;

	LockWaitBudget(long deadlineNanos, Duration floor) {
		this.deadlineNanos = deadlineNanos;
		this.floorMillis = Math.max(1, floor.toMillis());
	}

	/**
	 * What a statement about to start may wait, in milliseconds: the time to the
	 * deadline, at least the floor.
	 * @return the milliseconds
	 */
	long remainingMillis() {
		long left = (this.deadlineNanos - System.nanoTime()) / 1_000_000;
		return Math.max(this.floorMillis, left);
	}

}
