package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception distlock raises. Unchecked, so that lock failures travel
 * through Spring's proxies and callers' code like any other runtime failure.
 *
 * @since 0.1.0
 */
public class DistributedLockException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public DistributedLockException(String message) {
		super(message);
	}

	public DistributedLockException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
