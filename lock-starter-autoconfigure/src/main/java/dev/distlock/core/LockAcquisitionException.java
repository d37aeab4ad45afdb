package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * A lock could not be acquired: the wait time ran out, the thread was interrupted, or the
 * backend failed (the backend's exception is kept as the cause). When this is thrown
 * nothing is held: an attempt whose reply was lost has already been released best-effort
 * with its own owner token.
 *
 * @since 0.1.0
 */
public class LockAcquisitionException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	public LockAcquisitionException(String message) {
		super(message);
	}

	public LockAcquisitionException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

	/**
	 * Whether the failure was the wait time running out (as opposed to a backend error or
	 * an interrupt).
	 * @return {@code true} for a timeout
	 */
	public boolean isTimeout() {
		return getCause() == null;
	}

}
