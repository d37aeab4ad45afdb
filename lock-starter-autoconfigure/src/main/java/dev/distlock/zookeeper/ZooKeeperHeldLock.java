package dev.distlock.zookeeper;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import org.jspecify.annotations.Nullable;

/**
 * A lock held through one ephemeral sequential node. The node's path is unique (sequence
 * number plus Curator's protection id) and never reused, so whoever knows the path owns
 * the node and deleting it can never remove another owner's node. Its lease is judged by
 * the core's lease clock, not here; this object only knows whether the hold ended, which
 * is guarded by this object's monitor. It is also a link of its provider's
 * {@link HeldLocks}, whose monitor guards the links.
 */
final class ZooKeeperHeldLock implements HeldLock {

	private final LockAttempt attempt;

	private final String path;

	private final long fencingToken;

	private boolean finished;

	/** The lock before this one in its {@link HeldLocks}; guarded by that list. */
	@Nullable ZooKeeperHeldLock previous;

	/** The lock after this one in its {@link HeldLocks}; guarded by that list. */
	@Nullable ZooKeeperHeldLock next;

	ZooKeeperHeldLock(LockAttempt attempt, String path, long fencingToken) {
		this.attempt = attempt;
		this.path = path;
		this.fencingToken = fencingToken;
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

	@Override
	public String toString() {
		return "ZooKeeperHeldLock[" + this.path + ", token=" + this.fencingToken + "]";
	}

}
