package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Observes what {@link LockTemplate} does, for metrics, tracing and logs. Called
 * synchronously on the thread that did the work (the renewer's for renewals and losses),
 * so implementations must be fast and must not throw; an exception is logged and ignored.
 *
 * @since 0.1.0
 */
public interface LockListener {

	/**
	 * An acquisition starts (not called for re-entry), before any local queueing or
	 * waiting. Exactly one of {@link #acquired} or {@link #acquireFailed} follows on the
	 * same thread, so an implementation may keep the state of one acquisition (a span, a
	 * start time) in a thread-local between them. Only an unexpected failure (an
	 * {@link Error} thrown by a backend, a template used after it was closed) skips that
	 * follow-up, so an implementation should discard a leftover it finds.
	 * @param request the request
	 * @param provider the backend's name
	 */
	default void acquiring(LockRequest request, String provider) {
	}

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
