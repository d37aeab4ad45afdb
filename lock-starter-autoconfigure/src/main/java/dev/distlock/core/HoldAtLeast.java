package dev.distlock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Hold-at-least ({@link LockRequest#holdAtLeast()}): a lock released before {@code holdAtLeast} has passed since it
 * was acquired is not freed but renewed, owner-checked, for exactly what is left, so the backend frees it then, in
 * its own time, whatever this process does next (crashes included, since the backend lease was never shorter than
 * the hold). Locally the lease ends as on any release: the local queue opens and re-entry stops, and a thread of this
 * process that asks again meets the backend's lock like any other caller.
 */
final class HoldAtLeast {

	private static final long NANOS_PER_MILLI = 1_000_000;

	private HoldAtLeast() {
	}

	/**
	 * Checks a request's hold against its fixed lease, which would free the lock before the hold ends.
	 * @throws LockConfigurationException if the hold is negative or longer than the fixed lease
	 */
	static void validate(String key, @Nullable Duration holdAtLeast, @Nullable Duration lease) {
		if (holdAtLeast == null) {
			return;
		}
		if (holdAtLeast.isNegative()) {
			throw new LockConfigurationException(
					"Hold-at-least of lock '" + key + "' must not be negative, was " + holdAtLeast);
		}
		if (lease != null && holdAtLeast.compareTo(lease) > 0) {
			throw new LockConfigurationException("Hold-at-least of lock '" + key + "' (" + holdAtLeast
					+ ") must not be longer than its fixed lease (" + lease
					+ "): the backend would free the lock before the hold ends");
		}
	}

	/**
	 * The backend lease of an acquisition: the fixed lease, or under the watchdog the longer of the watchdog lease and
	 * the hold, so that a holder that crashes at once still leaves the lock taken for the whole hold.
	 * @param request the request
	 * @param fixed its fixed lease (or the configured default), or {@code null} for the watchdog
	 * @param watchdogLease the watchdog's lease
	 * @return the lease to set on the backend
	 * @throws LockConfigurationException if the hold is longer than a configured default lease
	 */
	static Duration backendLease(LockRequest request, @Nullable Duration fixed, Duration watchdogLease) {
		Duration hold = request.holdAtLeast();
		if (fixed != null) {
			validate(request.key(), hold, fixed);
			return fixed;
		}
		return (hold != null && hold.compareTo(watchdogLease) > 0) ? hold : watchdogLease;
	}

	/**
	 * Keeps the lock on the backend for the rest of its hold instead of releasing it: renews it (owner-checked) for
	 * what is left, rounded up to a whole millisecond and to the backend's minimum lease.
	 * @param lease the lease being released
	 * @return {@code true} if the hold applied (the lock must not be released now), {@code false} to release it
	 * @throws Exception if the backend failed; the backend lease, never shorter than the hold, then frees the lock
	 */
	static <H extends HeldLock> boolean keep(ManagedLease<H> lease) throws Exception {
		if (lease.releaseAtOnce) {
			return false;
		}
		long left = lease.holdEndNanos() - System.nanoTime();
		if (left <= 0) {
			return false;
		}
		Duration remaining = Duration.ofMillis((left + NANOS_PER_MILLI - 1) / NANOS_PER_MILLI);
		LockProvider<H> provider = lease.provider();
		if (remaining.compareTo(provider.minimumLease()) < 0) {
			remaining = provider.minimumLease();
		}
		// false: the owner no longer holds it, so there is nothing to release either
		if (provider.renew(lease.held(), remaining) && !provider.expiresLeases()) {
			// a backend whose locks never expire (ZooKeeper) is released when the hold is over
			HeldPastRelease.releaseAfter(provider, lease.held(), remaining);
		}
		return true;
	}

}
