package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * A lock is misconfigured: a bad annotation (unparseable key expression, unknown fallback
 * method, bad duration), bad properties, an unknown provider, or a lock type the chosen
 * backend does not support. Raised at startup wherever the mistake can be seen then, so
 * that it never surfaces first in production traffic.
 *
 * @since 0.1.0
 */
public class LockConfigurationException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	public LockConfigurationException(String message) {
		super(message);
	}

	public LockConfigurationException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
