package dev.distlock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

import org.jspecify.annotations.Nullable;

/**
 * Local queueing: threads of this JVM that want the same lock line up here, so that only one of them at a time
 * talks to the backend. For exclusive types the place is kept for the whole hold (the others wait without network
 * traffic and are woken on release); for shared types only while acquiring. MUTEX and WRITE let a newcomer take a
 * freed place before a woken waiter (as {@code ReentrantLock} does by default: no wake-up per hand-over); FAIR queues
 * first come first served.
 * <p>
 * A place ends with its lease, however the lease ends: released, lost, or out of time. No timer is needed for the
 * last: a waiter bounds its wait by the holder's lease end and, once that has passed, marks the holder lost (which
 * frees the place) and takes over. Nothing of this runs while nobody waits.
 */
final class LocalQueue {

	private static final long TAKEOVER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	@SuppressWarnings("unchecked")
	private final ConcurrentHashMap<String, Slot>[] slots = new ConcurrentHashMap[LockType.values().length];

	LocalQueue() {
		for (int i = 0; i < this.slots.length; i++) {
			this.slots[i] = new ConcurrentHashMap<>();
		}
	}

	/**
	 * Takes the lock's place for the lease, waiting at most until the deadline.
	 * @return {@code true} if the lease holds the place now, {@code false} if the deadline passed first
	 */
	boolean enter(ManagedLease<?> lease, long deadlineNanos, boolean tryOnce) throws InterruptedException {
		LockType type = lease.type();
		ConcurrentHashMap<String, Slot> map = this.slots[type.ordinal()];
		String key = lease.key();
		Slot slot = join(map, key, type == LockType.FAIR);
		boolean entered = false;
		try {
			entered = slot.take(deadlineNanos, tryOnce);
		}
		finally {
			if (!entered) {
				slot.leave();
			}
		}
		if (entered) {
			slot.holder = lease;
			lease.slot = slot;
		}
		return entered;
	}

	/** Gives up the lease's place, if it still has it, and lets the next local thread in. */
	void exit(ManagedLease<?> lease) {
		Slot slot = lease.slot;
		if (slot != null) {
			lease.slot = null;
			slot.free(lease);
		}
	}

	private static Slot join(ConcurrentHashMap<String, Slot> map, String key, boolean fair) {
		while (true) {
			Slot slot = map.get(key);
			if (slot == null) {
				Slot created = new Slot(map, key, fair);
				slot = map.putIfAbsent(key, created);
				if (slot == null) {
					slot = created;
				}
			}
			if (slot.join()) {
				return slot;
			}
			map.remove(key, slot);
		}
	}

	int size() {
		int size = 0;
		for (ConcurrentHashMap<String, Slot> map : this.slots) {
			size += map.size();
		}
		return size;
	}

	/** One lock's place: state 1 while a lease holds it; users counts holders and waiters, -1 once removed. */
	static final class Slot extends AbstractQueuedSynchronizer {

		private static final long serialVersionUID = 1L;

		private static final VarHandle USERS;

		private static final VarHandle HOLDER;

		static {
			try {
				MethodHandles.Lookup lookup = MethodHandles.lookup();
				USERS = lookup.findVarHandle(Slot.class, "users", int.class);
				HOLDER = lookup.findVarHandle(Slot.class, "holder", ManagedLease.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		private final transient ConcurrentHashMap<String, Slot> map;

		private final String key;

		private final boolean fair;

		private volatile int users;

		volatile transient @Nullable ManagedLease<?> holder;

		Slot(ConcurrentHashMap<String, Slot> map, String key, boolean fair) {
			this.map = map;
			this.key = key;
			this.fair = fair;
		}

		boolean join() {
			int current;
			do {
				current = this.users;
				if (current < 0) {
					return false;
				}
			}
			while (!USERS.compareAndSet(this, current, current + 1));
			return true;
		}

		void leave() {
			if ((int) USERS.getAndAdd(this, -1) == 1 && USERS.compareAndSet(this, 0, -1)) {
				this.map.remove(this.key, this);
			}
		}

		boolean take(long deadlineNanos, boolean tryOnce) throws InterruptedException {
			if (tryAcquire(1)) {
				return true;
			}
			if (tryOnce) {
				return false;
			}
			while (true) {
				long now = System.nanoTime();
				long remaining = deadlineNanos - now;
				if (remaining <= 0) {
					return false;
				}
				ManagedLease<?> current = this.holder;
				long wait = remaining;
				if (current != null && current.state() == ManagedLease.HELD) {
					// the holder's lease bounds the wait: past its end the place is taken over
					wait = Math.min(wait, Math.max(0, current.expiryNanos() - now) + TAKEOVER_SLACK_NANOS);
				}
				if (tryAcquireNanos(1, wait)) {
					return true;
				}
			}
		}

		void free(ManagedLease<?> lease) {
			if (HOLDER.compareAndSet(this, lease, null)) {
				release(1);
			}
			leave();
		}

		@Override
		protected boolean tryAcquire(int ignored) {
			if (this.fair && hasQueuedPredecessors()) {
				return false;
			}
			if (compareAndSetState(0, 1)) {
				return true;
			}
			ManagedLease<?> current = this.holder;
			// marking the expired holder lost frees this place through the lease's end (LeaseHost.ended)
			return current != null && current.endIfExpiredAndRelease(System.nanoTime()) && compareAndSetState(0, 1);
		}

		@Override
		protected boolean tryRelease(int ignored) {
			setState(0);
			return true;
		}

		@Override
		protected boolean isHeldExclusively() {
			return false;
		}

	}

}
