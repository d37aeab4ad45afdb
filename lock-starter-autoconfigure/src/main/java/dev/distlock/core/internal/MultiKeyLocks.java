package dev.distlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * Several keys locked together, all or none, on any backend: a composite built on
 * single-key acquisitions ({@link LockAcquirer}: re-entry, local queue, leases and
 * renewal per key), which know nothing of it. Keys are taken one by one in sorted order,
 * the one global order that keeps two callers with overlapping sets from deadlocking;
 * each waits at most for what is left of the request's wait, and when one is not had in
 * time (or fails) those already taken are released at once, in reverse order, without any
 * hold-at-least.
 */
final class MultiKeyLocks {

	private final LockAcquirer single;

	MultiKeyLocks(LockAcquirer single) {
		this.single = single;
	}

	/**
	 * Acquires every key of a multi-key request within its wait, or none.
	 * @param request the multi-key request
	 * @param wait the request's wait time
	 * @return the lease over all keys, or {@code null} if one of them stayed busy for the
	 * whole wait
	 * @throws LockAcquisitionException if a backend failed (nothing stays held)
	 */
	@Nullable EngineLease acquire(LockRequest request, Duration wait) {
		long deadline = System.nanoTime() + Timing.saturatedNanos(wait);
		List<String> keys = request.keys();
		List<EngineLease> held = new ArrayList<>(keys.size());
		boolean complete = false;
		try {
			for (String key : keys) {
				Duration left = wait.isZero() ? Duration.ZERO
						: Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
				EngineLease lease = this.single.acquire(request.toBuilder().key(key).waitTime(left).build());
				if (lease == null) {
					return null;
				}
				held.add(lease);
			}
			complete = true;
			return new MultiKeyLease(request, held);
		}
		finally {
			if (!complete) {
				releaseAtOnce(held);
			}
		}
	}

	/**
	 * Gives back keys taken for an acquisition that failed: in reverse order, and without
	 * any hold-at-least.
	 */
	private static void releaseAtOnce(List<EngineLease> held) {
		for (int i = held.size() - 1; i >= 0; i--) {
			EngineLease lease = held.get(i);
			if (lease instanceof ManagedLease<?> managed) {
				managed.releaseWithoutHold();
			}
			else {
				lease.release();
			}
		}
	}

}
