package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * A lock key could not be made: its expression failed to evaluate, or gave {@code null}
 * or a blank string. Nothing was locked and the guarded method did not run.
 *
 * @since 0.1.0
 */
public class LockKeyException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	public LockKeyException(String message) {
		super(message);
	}

	public LockKeyException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
