package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Observes what {@link LockTemplate} does, for metrics, tracing and logs. Called synchronously on the thread that
 * did the work (the renewer's for renewals and losses), so implementations must be fast and must not throw; an
 * exception is logged and ignored.
 *
 * @since 0.1.0
 */
public interface LockListener {

	/**
	 * A lock was acquired (not called for re-entry).
	 * @param lease the new lease
	 * @param provider the backend's name
	 * @param waitNanos time from the request to the grant
	 */
	default void acquired(Lease lease, String provider, long waitNanos) {
	}

	/**
	 * An acquisition failed.
	 * @param request the request
	 * @param provider the backend's name
	 * @param waitNanos time spent before giving up
	 * @param error the backend error, or {@code null} when the wait time ran out
	 */
	default void acquireFailed(LockRequest request, String provider, long waitNanos, @Nullable Throwable error) {
	}

	/**
	 * A lease was released (its outermost hold ended).
	 * @param lease the lease
	 * @param provider the backend's name
	 * @param heldNanos time from grant to release
	 */
	default void released(Lease lease, String provider, long heldNanos) {
	}

	/**
	 * A lease was renewed by the watchdog or extended.
	 * @param lease the lease
	 * @param provider the backend's name
	 */
	default void renewed(Lease lease, String provider) {
	}

	/**
	 * A lease was lost while held.
	 * @param lease the lease
	 * @param provider the backend's name
	 * @param reason what happened
	 */
	default void lost(Lease lease, String provider, String reason) {
	}

}
