package dev.distlock.local;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import org.jspecify.annotations.Nullable;

/** One local lock's holders, FAIR queue and waiters; guarded by its own monitor. */
final class LocalLockState {

	LocalLockProvider.@Nullable LocalHold single;

	@Nullable List<LocalLockProvider.LocalHold> others;

	@Nullable LinkedHashMap<LockAttempt, Long> queue;

	@Nullable List<Runnable> listeners;

	/** Set once it is removed from the store; users then look it up again. */
	boolean dead;

	LinkedHashMap<LockAttempt, Long> queue() {
		if (this.queue == null) {
			this.queue = new LinkedHashMap<>();
		}
		return this.queue;
	}

	List<Runnable> listeners() {
		if (this.listeners == null) {
			this.listeners = new CopyOnWriteArrayList<>();
		}
		return this.listeners;
	}

	void add(LocalLockProvider.LocalHold hold) {
		if (this.single == null) {
			this.single = hold;
		}
		else {
			if (this.others == null) {
				this.others = new ArrayList<>(2);
			}
			this.others.add(hold);
		}
	}

	boolean holds(LocalLockProvider.LocalHold hold) {
		return this.single == hold || (this.others != null && this.others.contains(hold));
	}

	boolean remove(LocalLockProvider.LocalHold hold) {
		if (this.single == hold) {
			this.single = (this.others != null && !this.others.isEmpty()) ? this.others.remove(0) : null;
			return true;
		}
		return this.others != null && this.others.remove(hold);
	}

	boolean removeAll(LockAttempt attempt) {
		boolean changed = false;
		if (this.single != null && this.single.attempt == attempt) {
			changed = remove(this.single);
		}
		if (this.others != null) {
			changed |= this.others.removeIf((hold) -> hold.attempt == attempt);
		}
		if (this.queue != null) {
			changed |= this.queue.remove(attempt) != null;
		}
		return changed;
	}

	void wake() {
		List<Runnable> current;
		synchronized (this) {
			current = this.listeners;
		}
		if (current != null) {
			current.forEach(Runnable::run);
		}
	}

	void purge(long now) {
		if (this.others != null) {
			this.others.removeIf((hold) -> hold.expiryNanos - now <= 0);
		}
		if (this.single != null && this.single.expiryNanos - now <= 0) {
			remove(this.single);
		}
		if (this.queue != null) {
			this.queue.values().removeIf((until) -> until - now <= 0);
		}
	}

	boolean isUnused() {
		return this.single == null && (this.queue == null || this.queue.isEmpty())
				&& (this.listeners == null || this.listeners.isEmpty());
	}

	int count() {
		return (this.single == null) ? 0 : 1 + ((this.others != null) ? this.others.size() : 0);
	}

	/**
	 * When the attempt may take the lock.
	 * @return 0 if the attempt may take the lock now, else the nano time at which the
	 * blocking lease ends, or -1 when that is unknown (a FAIR waiter queued ahead)
	 */
	long blockedUntil(LockAttempt attempt, long now) {
		if (attempt.type() == LockType.SEMAPHORE) {
			return (count() < attempt.permits()) ? 0 : earliest(now);
		}
		long until = 0;
		if (this.single != null) {
			until = blocking(attempt, this.single, until);
			if (this.others != null) {
				for (LocalLockProvider.LocalHold hold : this.others) {
					until = blocking(attempt, hold, until);
				}
			}
		}
		if (until != 0) {
			return until;
		}
		if (attempt.type() == LockType.FAIR && this.queue != null) {
			Iterator<LockAttempt> first = this.queue.keySet().iterator();
			if (first.hasNext() && first.next() != attempt) {
				return -1;
			}
		}
		return 0;
	}

	private static long blocking(LockAttempt attempt, LocalLockProvider.LocalHold hold, long until) {
		boolean conflicts = attempt.type() != LockType.READ || hold.attempt.type() == LockType.WRITE;
		if (!conflicts) {
			return until;
		}
		return (until == 0) ? hold.expiryNanos : Math.min(until, hold.expiryNanos);
	}

	private long earliest(long now) {
		long earliest = (this.single != null) ? this.single.expiryNanos : Long.MAX_VALUE;
		if (this.others != null) {
			for (LocalLockProvider.LocalHold hold : this.others) {
				earliest = Math.min(earliest, hold.expiryNanos);
			}
		}
		return (earliest == Long.MAX_VALUE) ? now + TimeUnit.MILLISECONDS.toNanos(1) : earliest;
	}

}
