package dev.distlock.core.internal;

import java.time.Duration;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

/**
 * Hold-at-least ({@link LockRequest#holdAtLeast()},
 * {@code Lease.extend(lease, holdAtLeast)}), the release policy of a lease whose hold has
 * not ended yet: a lock released before its hold's end is not freed but renewed,
 * owner-checked, for exactly what is left, so the backend frees it then, in its own time,
 * whatever this process does next (crashes included, since the backend lease was never
 * shorter than the hold). Locally the lease ends as on any release: the local queue opens
 * and re-entry stops, and a thread of this process that asks again meets the backend's
 * lock like any other caller.
 */
final class HoldAtLeast {

	private static final long NANOS_PER_MILLI = 1_000_000;

	private HoldAtLeast() {
	}

	/**
	 * Checks a hold against the lease it comes with, which would free the lock before the
	 * hold ends.
	 * @param key the lock's key, for the message
	 * @param hold the hold
	 * @param lease the lease
	 * @throws LockConfigurationException if the hold is negative or longer than the lease
	 */
	static void check(String key, Duration hold, Duration lease) {
		LockRequest.checkHoldAtLeast(hold, lease, LockRequest.settingOf(key));
	}

	/**
	 * The backend lease of an acquisition: the fixed lease, or under the watchdog the
	 * longer of the watchdog lease and the hold, so that a holder that crashes at once
	 * still leaves the lock taken for the whole hold.
	 * @param request the request
	 * @param fixed its fixed lease (or the configured default), or {@code null} for the
	 * watchdog
	 * @param watchdogLease the watchdog's lease
	 * @return the lease to set on the backend
	 * @throws LockConfigurationException if the hold is longer than the configured
	 * default lease
	 */
	static Duration backendLease(LockRequest request, @Nullable Duration fixed, Duration watchdogLease) {
		Duration hold = request.holdAtLeast();
		if (fixed != null) {
			LockRequest.checkHoldAtLeast(hold, fixed, LockRequest.settingOf(request.key()));
			return fixed;
		}
		return (hold != null && hold.compareTo(watchdogLease) > 0) ? hold : watchdogLease;
	}

	/**
	 * Keeps the lock on the backend for the rest of its hold instead of releasing it:
	 * renews it (owner-checked) for what is left, rounded up to a whole millisecond and
	 * to the backend's minimum lease.
	 * @param provider the lock's backend
	 * @param lock the lock being released
	 * @param holdEndNanos when the hold ends, on the {@link System#nanoTime()} scale
	 * @return {@code true} if the hold applied (the lock must not be released now),
	 * {@code false} to release it
	 * @throws Exception if the backend failed; the backend lease, never shorter than the
	 * hold, then frees the lock
	 */
	static <H extends HeldLock> boolean keep(LockProvider<H> provider, H lock, long holdEndNanos) throws Exception {
		long left = holdEndNanos - System.nanoTime();
		if (left <= 0) {
			return false;
		}
		Duration remaining = Duration.ofMillis((left + NANOS_PER_MILLI - 1) / NANOS_PER_MILLI);
		if (remaining.compareTo(provider.minimumLease()) < 0) {
			remaining = provider.minimumLease();
		}
		// false: the owner no longer holds it, so there is nothing to release either
		if (provider.renew(lock, remaining) && !provider.expiresLeases()) {
			// a backend whose locks never expire (ZooKeeper) is released when the hold is
			// over
			HeldPastRelease.releaseAfter(provider, lock, remaining);
		}
		return true;
	}

}
