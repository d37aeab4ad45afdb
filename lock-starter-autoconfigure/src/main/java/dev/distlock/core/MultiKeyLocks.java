package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * Several keys locked together, all or none, on any backend: a composite over single-key acquisitions through the
 * executor's own path (re-entry, local queue, leases and renewal per key). Keys are taken one by one in sorted order,
 * the one global order that keeps two callers with overlapping sets from deadlocking; each waits at most for what is
 * left of the request's wait, and when one is not had in time (or fails) those already taken are released at once,
 * in reverse order, without any hold-at-least.
 */
final class MultiKeyLocks {

	private MultiKeyLocks() {
	}

	/**
	 * The keys of a multi-key request in lock order: sorted and distinct.
	 * @param keys the keys
	 * @return the keys, at least one
	 * @throws LockConfigurationException if there is no key or one is blank
	 */
	static List<String> sortedKeys(Collection<String> keys) {
		if (keys.isEmpty()) {
			throw new LockConfigurationException("A multi-key lock needs at least one key, got none");
		}
		TreeSet<String> sorted = new TreeSet<>();
		for (String each : keys) {
			if (each == null || each.isBlank()) {
				throw new LockConfigurationException("Keys of a multi-key lock must not be null or blank, got " + keys);
			}
			sorted.add(each);
		}
		return List.copyOf(sorted);
	}

	/**
	 * Acquires every key of a multi-key request within its wait, or none.
	 * @param executor the executor that acquires each key
	 * @param request the multi-key request
	 * @param wait the request's wait time
	 * @return the lease over all keys, or {@code null} if one of them stayed busy for the whole wait
	 * @throws LockAcquisitionException if a backend failed (nothing stays held)
	 */
	static @Nullable Lease acquire(LockExecutor executor, LockRequest request, Duration wait) {
		long deadline = System.nanoTime() + LockWaiter.saturatedNanos(wait);
		List<String> keys = request.keys();
		List<Lease> held = new ArrayList<>(keys.size());
		boolean complete = false;
		try {
			for (String key : keys) {
				Duration left = wait.isZero() ? Duration.ZERO
						: Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
				Lease lease = executor.acquire(request.toBuilder().key(key).waitTime(left).build());
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

	/** Gives back keys taken for an acquisition that failed: in reverse order, and without any hold-at-least. */
	private static void releaseAtOnce(List<Lease> held) {
		for (int i = held.size() - 1; i >= 0; i--) {
			Lease lease = held.get(i);
			if (lease instanceof ManagedLease<?> managed) {
				managed.releaseAtOnce = true;
			}
			lease.release();
		}
	}

}
