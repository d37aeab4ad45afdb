package dev.distlock.core;

/**
 * The lease was lost while it was supposed to be held: its renewal failed, the backend no
 * longer has the lock (it expired, was deleted, or the ZooKeeper session ended), or a
 * fixed lease ran out before the work finished. Another holder may have run at the same
 * time, so work guarded by the lock must be treated as unprotected; a fencing token check
 * at the resource is what keeps such a late writer out.
 *
 * @since 0.1.0
 */
public class LockLostException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	public LockLostException(String message) {
		super(message);
	}

}
