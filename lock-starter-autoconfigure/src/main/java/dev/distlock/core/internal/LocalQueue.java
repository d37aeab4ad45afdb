package dev.distlock.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * Local queueing: threads of this JVM that want the same lock line up here, so that only
 * one of them at a time talks to the backend. For exclusive types the place is kept for
 * the whole hold (the others wait without network traffic and are woken on release); for
 * shared types only while acquiring. MUTEX and WRITE let a newcomer take a freed place
 * before a woken waiter (as {@code ReentrantLock} does by default: no wake-up per
 * hand-over); FAIR queues first come first served.
 * <p>
 * A place ends with its lease, however the lease ends: released, lost, or out of time. No
 * timer is needed for the last: a waiter bounds its wait by the holder's lease end and,
 * once that has passed, marks the holder lost (which frees the place) and takes over.
 * Nothing of this runs while nobody waits.
 * <p>
 * An idle place stays in its map for the next acquisition of the key (a hot key allocates
 * nothing per call) while the map holds at most {@value #SWEEP_SLACK} places; past that,
 * the place its last user leaves goes at once. Idle places left otherwise are swept in
 * bulk when a map has grown past twice what it kept at its last sweep (and at least twice
 * {@value #SWEEP_SLACK}), so memory stays bounded and the sweep costs O(1) per call on
 * average.
 */
final class LocalQueue {

	private static final long TAKEOVER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/**
	 * How soon a waiter that finds no holder looks again; doubled on each look, up to
	 * {@link #RECHECK_MAX_NANOS}.
	 */
	private static final long RECHECK_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long RECHECK_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	/** Idle places a map keeps for the next acquisition of their keys. */
	static final int SWEEP_SLACK = 1024;

	/** A crowded map is counted again about once in this many calls (a power of two). */
	static final int RECOUNT_ONE_IN = 64;

	private final Places[] slots = new Places[LockType.values().length];

	LocalQueue() {
		for (int i = 0; i < this.slots.length; i++) {
			this.slots[i] = new Places();
		}
	}

	/**
	 * What holds a place: a lease, seen only through what the queue needs to bound a wait
	 * and to take an expired holder's place over.
	 */
	interface Holder {

		/**
		 * Whether the holder still holds its lock (not released, not lost).
		 * @return {@code true} while held
		 */
		boolean isHeld();

		/**
		 * When the holder's lease ends by its own clock, on the {@link System#nanoTime()}
		 * scale.
		 * @return the expiry
		 */
		long expiryNanos();

		/**
		 * Releases the holder's lock on the backend, or waits until the release another
		 * thread began is done: what a thread that took the place after this holder's
		 * lease was lost does before it asks the backend, so that it does not find the
		 * lock still held by that lease. Bounded by the backend's own bound on a release.
		 */
		void releaseBackendOrAwait();

	}

	/**
	 * Takes the lock's place for the holder, waiting at most until the deadline. A holder
	 * whose lease ran out by its clock is displaced ({@link Slot#takeDisplaced()}): the
	 * caller ends it before asking the backend.
	 * @return the place, or {@code null} if the deadline passed first
	 */
	@Nullable Slot enter(Holder holder, String key, LockType type, long deadlineNanos, boolean tryOnce)
			throws InterruptedException {
		Places places = this.slots[type.ordinal()];
		Slot slot = join(places, key, type == LockType.FAIR);
		boolean entered = false;
		try {
			entered = slot.take(deadlineNanos, tryOnce);
		}
		finally {
			if (!entered) {
				slot.leave();
			}
		}
		if (!entered) {
			return null;
		}
		slot.holder = holder;
		return slot;
	}

	/**
	 * Gives up a holder's place and lets the next local thread in; a place already taken
	 * over by another holder is only left.
	 * @param slot the place, or {@code null} for none
	 * @param holder the holder that had it
	 */
	void exit(@Nullable Slot slot, Holder holder) {
		if (slot != null) {
			slot.free(holder);
		}
	}

	/**
	 * Marks a lost holder's place while the holder's lock is released on the backend in
	 * the background: the place stays in its map, and a thread that takes it meanwhile
	 * finds the holder ({@link Slot#releasing()}).
	 * @param slot the place, or {@code null} for none
	 * @param holder the lost holder
	 * @return the marked place, to pass to {@link #released(Slot, Holder)}, or
	 * {@code null} if there was none
	 */
	@Nullable Slot markReleasing(@Nullable Slot slot, Holder holder) {
		if (slot == null || !slot.join()) {
			return null;
		}
		slot.releasing = holder;
		return slot;
	}

	/**
	 * Ends the mark of {@link #markReleasing(Slot, Holder)} once the release is done.
	 * @param slot the marked place, or {@code null} for none
	 * @param holder the holder it was marked for
	 */
	void released(@Nullable Slot slot, Holder holder) {
		if (slot != null) {
			Slot.RELEASING.compareAndSet(slot, holder, null);
			slot.leave();
		}
	}

	private static Slot join(Places places, String key, boolean fair) {
		ConcurrentHashMap<String, Slot> map = places.map;
		while (true) {
			Slot slot = map.get(key);
			if (slot == null) {
				Slot created = new Slot(places, key, fair);
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

	/**
	 * Places in use (held or waited for); idle places kept for reuse do not count.
	 * @return the number of places in use
	 */
	int size() {
		int size = 0;
		for (Places places : this.slots) {
			for (Slot slot : places.map.values()) {
				if (slot.users > 0) {
					size++;
				}
			}
		}
		return size;
	}

	/**
	 * The places of one lock type, idle ones included.
	 * @return every place the map holds
	 */
	int retained() {
		int retained = 0;
		for (Places places : this.slots) {
			retained += places.map.size();
		}
		return retained;
	}

	/** The places of one lock type, and when to sweep the idle ones. */
	static final class Places {

		final ConcurrentHashMap<String, Slot> map = new ConcurrentHashMap<>();

		private volatile int sweepAt = 2 * SWEEP_SLACK;

		/**
		 * Whether the map held more than {@value #SWEEP_SLACK} places when last counted.
		 */
		private volatile boolean crowded;

		/** Whether a sweep runs: callers that find one running go on. */
		private final AtomicBoolean sweeping = new AtomicBoolean();

		/**
		 * A place its last user left: it stays for the key's next acquisition while the
		 * map holds at most {@value #SWEEP_SLACK} places, else it goes at once, so over
		 * many keys the map stays near that size without sweeping. Idle places left
		 * otherwise are swept in bulk past the mark; a caller that finds a sweep running
		 * goes on.
		 * <p>
		 * Counting the map reads every one of its counter cells, which the other threads'
		 * inserts and removals keep writing: a map found crowded is counted again only
		 * about once in {@value #RECOUNT_ONE_IN} calls (to see it shrink, or grow past
		 * the sweep mark), and its idle places leave meanwhile.
		 */
		void idle(Slot slot) {
			int size;
			if (!this.crowded) {
				size = this.map.size();
				if (size <= SWEEP_SLACK) {
					return;
				}
				this.crowded = true;
				drop(slot);
			}
			else {
				drop(slot);
				if ((ThreadLocalRandom.current().nextInt() & (RECOUNT_ONE_IN - 1)) != 0) {
					return;
				}
				size = this.map.size();
				if (size <= SWEEP_SLACK) {
					this.crowded = false;
					return;
				}
			}
			if (size > this.sweepAt && this.sweeping.compareAndSet(false, true)) {
				try {
					sweep();
				}
				finally {
					this.sweeping.set(false);
				}
			}
		}

		private void drop(Slot slot) {
			if (slot.retire()) {
				this.map.remove(slot.key, slot);
			}
		}

		private void sweep() {
			if (this.map.size() <= this.sweepAt) {
				return;
			}
			for (Slot slot : this.map.values()) {
				if (slot.retire()) {
					this.map.remove(slot.key, slot);
				}
			}
			this.sweepAt = Math.max(2 * SWEEP_SLACK, 2 * this.map.size());
		}

	}

	/**
	 * One lock's place: state 1 while a lease holds it; users counts holders and waiters,
	 * -1 once removed.
	 */
	static final class Slot extends AbstractQueuedSynchronizer {

		private static final long serialVersionUID = 1L;

		private static final VarHandle USERS;

		private static final VarHandle HOLDER;

		static final VarHandle RELEASING;

		static {
			try {
				MethodHandles.Lookup lookup = MethodHandles.lookup();
				USERS = lookup.findVarHandle(Slot.class, "users", int.class);
				HOLDER = lookup.findVarHandle(Slot.class, "holder", Holder.class);
				RELEASING = lookup.findVarHandle(Slot.class, "releasing", Holder.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		private final transient Places places;

		private final String key;

		private final boolean fair;

		private volatile int users;

		transient volatile @Nullable Holder holder;

		/**
		 * A lost holder whose lock is being released on the backend in the background.
		 */
		private transient volatile @Nullable Holder releasing;

		private transient @Nullable Holder displaced; // written and read by the thread
														// that took the place over

		Slot(Places places, String key, boolean fair) {
			this.places = places;
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
			if ((int) USERS.getAndAdd(this, -1) == 1) {
				// idle: it stays for the key's next acquisition while the map is small
				this.places.idle(this);
			}
		}

		/** Takes an idle place out of use for good, so that it can leave the map. */
		boolean retire() {
			return USERS.compareAndSet(this, 0, -1);
		}

		boolean take(long deadlineNanos, boolean tryOnce) throws InterruptedException {
			if (tryAcquire(1)) {
				return true;
			}
			if (tryOnce) {
				return false;
			}
			long recheck = RECHECK_FIRST_NANOS;
			while (true) {
				long now = System.nanoTime();
				long remaining = deadlineNanos - now;
				if (remaining <= 0) {
					return false;
				}
				Holder current = this.holder;
				long wait;
				if (current != null && current.isHeld()) {
					// the holder's lease bounds the wait: past its end the place is taken
					// over
					wait = Math.min(remaining, Math.max(0, current.expiryNanos() - now) + TAKEOVER_SLACK_NANOS);
					recheck = RECHECK_FIRST_NANOS;
				}
				else {
					// no holder to read: the place is being handed over (taken, its new
					// holder not yet written) or its holder is ending; whoever comes next
					// may hold it with a lease that runs out unreleased, so look again
					// soon
					wait = Math.min(remaining, recheck);
					recheck = Math.min(2 * recheck, RECHECK_MAX_NANOS);
				}
				if (tryAcquireNanos(1, wait)) {
					return true;
				}
			}
		}

		/**
		 * The last lost holder of this place whose lock was still being released on the
		 * backend when it was marked ({@link LocalQueue#markReleasing(Slot, Holder)}).
		 * @return the holder, or {@code null}
		 */
		@Nullable Holder releasing() {
			return this.releasing;
		}

		/**
		 * The holder whose place the caller took over because its lease ran out, once.
		 * @return the displaced holder, or {@code null}
		 */
		@Nullable Holder takeDisplaced() {
			Holder previous = this.displaced;
			this.displaced = null;
			return previous;
		}

		void free(Holder lease) {
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
			Holder current = this.holder;
			// a holder whose lease ran out by its own clock gives its place up to the
			// first thread that finds it so:
			// the place changes hands without being opened, and that thread ends the
			// holder before going on
			if (current != null && current.isHeld() && System.nanoTime() - current.expiryNanos() >= 0
					&& HOLDER.compareAndSet(this, current, null)) {
				this.displaced = current;
				return true;
			}
			return false;
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
