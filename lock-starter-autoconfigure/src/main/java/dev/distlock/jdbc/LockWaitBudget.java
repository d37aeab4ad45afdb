package dev.distlock.jdbc;

import java.time.Duration;

/**
 * How long the statements of one acquire attempt may wait for row locks: until the
 * acquisition's deadline, but at least a floor, so that a try-once (no wait left) still
 * waits out another attempt's millisecond transaction, while a client stalled in a
 * transaction on the same rows delays it by no more than that. A statement's bound is at
 * most {@link Integer#MAX_VALUE} milliseconds (about 24.8 days), the largest lock timeout
 * PostgreSQL and H2 accept: a longer wait is a wait loop whose statements each wait at
 * most that long for row locks, which only a client stalled in a transaction holds that
 * long.
 */
final class LockWaitBudget {

	private final long deadlineNanos;

	private final long floorMillis;

	LockWaitBudget(long deadlineNanos, Duration floor) {
		this.deadlineNanos = deadlineNanos;
		this.floorMillis = Math.max(1, floor.toMillis());
	}

	/**
	 * Longest bound of one statement: PostgreSQL's {@code lock_timeout} and H2's
	 * {@code LOCK_TIMEOUT} are {@code int} milliseconds.
	 */
	static final long MAX_STATEMENT_MILLIS = Integer.MAX_VALUE;

	/**
	 * What a statement about to start may wait, in milliseconds: the time to the
	 * deadline, at least the floor, at most {@link #MAX_STATEMENT_MILLIS}.
	 * @return the milliseconds
	 */
	long remainingMillis() {
		long left = (this.deadlineNanos - System.nanoTime()) / 1_000_000;
		return Math.min(MAX_STATEMENT_MILLIS, Math.max(this.floorMillis, left));
	}

}
