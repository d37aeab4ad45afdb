package dev.distlock.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Local queueing: threads of this JVM that want the same lock line up here, first come first served, so that only
 * one of them at a time talks to the backend. For exclusive types the gate is kept for the whole hold (the others
 * wait without any network traffic and the holder hands over on release); for shared types only while acquiring.
 * Gates are created on demand and dropped when no thread holds or waits for them. The permit is a semaphore, not a
 * thread-owned lock, because a lease may be released from another thread.
 */
final class LocalGates {

	private final ConcurrentHashMap<GateKey, Gate> gates = new ConcurrentHashMap<>();

	/**
	 * Enters the gate of a lock, waiting at most until the deadline.
	 * @return the gate to {@link Gate#exit() exit} later, or {@code null} if the deadline passed first
	 */
	@Nullable Gate enter(String provider, String key, LockType type, long deadlineNanos, boolean tryOnce)
			throws InterruptedException {
		GateKey gateKey = new GateKey(provider, key, type);
		Gate gate = this.gates.compute(gateKey, (k, existing) -> {
			Gate g = (existing != null) ? existing : new Gate(k);
			g.users++;
			return g;
		});
		boolean entered = false;
		try {
			entered = tryOnce ? gate.permit.tryAcquire()
					: gate.permit.tryAcquire(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		finally {
			if (!entered) {
				leave(gate);
			}
		}
		return entered ? gate : null;
	}

	int size() {
		return this.gates.size();
	}

	private void leave(Gate gate) {
		this.gates.computeIfPresent(gate.key, (k, g) -> (--g.users == 0) ? null : g);
	}

	private record GateKey(String provider, String key, LockType type) {
	}

	/** One lock's local queue. */
	final class Gate {

		private final GateKey key;

		private final Semaphore permit = new Semaphore(1, true);

		private int users; // guarded by the map's compute on this gate's key

		private Gate(GateKey key) {
			this.key = key;
		}

		/** Lets the next local thread in. Call exactly once per successful {@link #enter}. */
		void exit() {
			this.permit.release();
			leave(this);
		}

	}

}
