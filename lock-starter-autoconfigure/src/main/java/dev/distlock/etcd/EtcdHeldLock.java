package dev.distlock.etcd;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import io.etcd.jetcd.ByteSequence;

/**
 * A lock held through one queue entry. The entry's key holds the attempt's owner token,
 * unique per acquisition, so whoever knows the key owns the entry, and deleting it can
 * never remove another owner's entry. The token is the entry's creation revision, which
 * no later write of the entry changes. Its lease is judged by the core's lease clock;
 * this object knows the etcd lease the entry is attached to and whether the hold ended.
 */
final class EtcdHeldLock implements HeldLock {

	private final LockAttempt attempt;

	private final ByteSequence entry;

	private final long fencingToken;

	private volatile EtcdLeases.Grant grant;

	private final AtomicBoolean finished = new AtomicBoolean();

	EtcdHeldLock(LockAttempt attempt, ByteSequence entry, long fencingToken, EtcdLeases.Grant grant) {
		this.attempt = attempt;
		this.entry = entry;
		this.fencingToken = fencingToken;
		this.grant = grant;
	}

	LockAttempt attempt() {
		return this.attempt;
	}

	ByteSequence entry() {
		return this.entry;
	}

	EtcdLeases.Grant grant() {
		return this.grant;
	}

	/**
	 * Records that the entry was moved to another etcd lease.
	 * @param moved the lease it is attached to now
	 */
	void movedTo(EtcdLeases.Grant moved) {
		EtcdLeases.Grant previous = this.grant;
		this.grant = moved;
		moved.add(this);
		previous.remove(this);
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	boolean isFinished() {
		return this.finished.get();
	}

	/**
	 * Ends the hold (released or lost) and detaches it from its etcd lease; only the
	 * first call returns {@code true}.
	 * @return whether the hold was live
	 */
	boolean finish() {
		if (!this.finished.compareAndSet(false, true)) {
			return false;
		}
		this.grant.remove(this);
		return true;
	}

	@Override
	public String toString() {
		return "EtcdHeldLock[" + this.entry + ", token=" + this.fencingToken + "]";
	}

}
