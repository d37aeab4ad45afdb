package dev.distlock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The range checks of a {@link LockRequest}, each failing with a {@link LockConfigurationException} that names the
 * lock and the value.
 */
final class LockRequestChecks {

	private LockRequestChecks() {
	}

	static @Nullable String blankToNull(@Nullable String value) {
		return (value != null && value.isBlank()) ? null : value;
	}

	static void check(@Nullable String key, LockType type, @Nullable Duration lease, @Nullable Duration waitTime, int permits) {
		if (key == null || key.isBlank()) {
			throw new LockConfigurationException("Lock key must not be null or blank");
		}
		int max = LockRequest.MAX_KEY_LENGTH;
		if (key.length() > max) {
			throw new LockConfigurationException("Lock key must be at most " + max + " characters, was " + key.length()
					+ " ('" + key.substring(0, 40) + "...'); hash long values into the key");
		}
		if (lease != null && (lease.isNegative() || lease.isZero())) {
			throw new LockConfigurationException("Lease of lock '" + key + "' must be positive, was " + lease);
		}
		if (waitTime != null && waitTime.isNegative()) {
			throw new LockConfigurationException("Wait time of lock '" + key + "' must not be negative, was " + waitTime);
		}
		if (permits < 1) {
			throw new LockConfigurationException("Permits of lock '" + key + "' must be at least 1, was " + permits);
		}
		if (type != LockType.SEMAPHORE && permits != 1) {
			throw new LockConfigurationException("Permits apply to SEMAPHORE only; lock '" + key + "' is "
					+ type + " with permits=" + permits);
		}
	}

}
