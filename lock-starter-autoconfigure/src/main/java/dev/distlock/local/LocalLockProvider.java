package dev.distlock.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.Acquisition;
import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockType;
import dev.distlock.core.ReleaseSubscription;
import dev.distlock.core.TryOnceLockProvider;
import org.jspecify.annotations.Nullable;

/**
 * The in-JVM backend, named {@code local}: the reference implementation of the provider contract and a real choice
 * for tests and single-instance applications. Every {@link LockType}; leases end at their expiry on this JVM's
 * monotonic clock (a fixed lease nobody released frees the lock then); fencing tokens come from one counter, so they
 * strictly increase per key; release wakes waiters directly. FAIR waiters keep their queue place while they keep
 * trying; a place not refreshed for {@link #FAIR_WAITER_TIMEOUT} is dropped so a dead waiter cannot block the queue.
 * <p>
 * MUTEX, FAIR, READ/WRITE and SEMAPHORE of one key are separate locks, as on the other backends. Instances made with
 * {@link #LocalLockProvider(LocalLockProvider)} share state, which stands for two processes sharing one backend.
 *
 * @since 0.1.0
 */
public final class LocalLockProvider implements TryOnceLockProvider<LocalLockProvider.LocalHold> {

	/** How long a FAIR waiter keeps its queue place without trying again. */
	public static final Duration FAIR_WAITER_TIMEOUT = Duration.ofSeconds(5);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	private final Store store;

	/** Creates a provider with its own, empty state. */
	public LocalLockProvider() {
		this.store = new Store();
	}

	/**
	 * Creates a provider that shares the other's state, as two processes share a backend.
	 * @param shareStateWith the provider whose locks this one sees
	 */
	public LocalLockProvider(LocalLockProvider shareStateWith) {
		this.store = shareStateWith.store;
	}

	@Override
	public String name() {
		return "local";
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	@Override
	public Acquisition<LocalHold> tryAcquire(LockAttempt attempt) {
		while (true) {
			State state = this.store.state(attempt.key(), attempt.type());
			synchronized (state) {
				if (state.dead) {
					continue;
				}
				long now = System.nanoTime();
				state.purge(now);
				long blockedUntil = state.blockedUntil(attempt, now);
				if (blockedUntil == 0) {
					if (state.queue != null) {
						state.queue.remove(attempt);
					}
					LocalHold hold = new LocalHold(attempt, this.store.fence.incrementAndGet(), state,
							now + attempt.lease().toNanos());
					state.add(hold);
					return Acquisition.acquired(hold);
				}
				if (attempt.type() == LockType.FAIR) {
					state.queue().put(attempt, now + FAIR_WAITER_TIMEOUT.toNanos());
				}
				return Acquisition.busy((blockedUntil > 0) ? Duration.ofNanos(blockedUntil - now) : null);
			}
		}
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) {
		while (true) {
			State state = this.store.state(attempt.key(), attempt.type());
			synchronized (state) {
				if (state.dead) {
					continue;
				}
				state.listeners().add(listener);
			}
			return () -> {
				synchronized (state) {
					state.listeners().remove(listener);
				}
				this.store.dropIfUnused(attempt.key(), attempt.type(), state);
			};
		}
	}

	@Override
	public boolean renew(LocalHold hold, Duration lease) {
		State state = hold.state;
		synchronized (state) {
			long now = System.nanoTime();
			state.purge(now);
			if (state.dead || !state.holds(hold)) {
				return false;
			}
			hold.expiryNanos = now + lease.toNanos();
			return true;
		}
	}

	@Override
	public void release(LocalHold hold) {
		State state = hold.state;
		boolean changed;
		synchronized (state) {
			changed = state.remove(hold);
		}
		if (changed) {
			state.wake();
		}
		this.store.dropIfUnused(hold.attempt.key(), hold.attempt.type(), state);
	}

	@Override
	public void abandon(LockAttempt attempt) {
		State state = this.store.existing(attempt.key(), attempt.type());
		if (state == null) {
			return;
		}
		boolean changed;
		synchronized (state) {
			changed = state.removeAll(attempt);
		}
		if (changed) {
			state.wake();
		}
		this.store.dropIfUnused(attempt.key(), attempt.type(), state);
	}

	@Override
	public void checkHealth(LockAttempt probe) {
		// an in-JVM map is always there
	}

	/**
	 * Breaks a lock behind its holders' backs, as an operator or a crash would: every holder of the attempt's lock
	 * loses it. For tests of lost-lease handling.
	 * @param key the full key
	 * @param type the lock type
	 */
	public void clear(String key, LockType type) {
		State state = this.store.existing(key, type);
		if (state != null) {
			synchronized (state) {
				state.single = null;
				state.others = null;
			}
			state.wake();
		}
	}

	/**
	 * Number of locks with holders, waiters or subscribers, for leak checks in tests.
	 * @return the number of live lock states
	 */
	public int liveLocks() {
		int live = 0;
		for (ConcurrentHashMap<String, State> states : this.store.states) {
			live += states.size();
		}
		return live;
	}

	/** A granted local lock: the holder's attempt, its token and its expiry. */
	static final class LocalHold implements HeldLock {

		private final LockAttempt attempt;

		private final long fencingToken;

		private final State state;

		private long expiryNanos; // guarded by state

		LocalHold(LockAttempt attempt, long fencingToken, State state, long expiryNanos) {
			this.attempt = attempt;
			this.fencingToken = fencingToken;
			this.state = state;
			this.expiryNanos = expiryNanos;
		}

		@Override
		public long fencingToken() {
			return this.fencingToken;
		}

	}

	private static final class Store {

		// one map per lock family: READ and WRITE of a key are one lock
		@SuppressWarnings("unchecked")
		private final ConcurrentHashMap<String, State>[] states = new ConcurrentHashMap[LockType.values().length];

		private final AtomicLong fence = new AtomicLong();

		Store() {
			for (int i = 0; i < this.states.length; i++) {
				this.states[i] = new ConcurrentHashMap<>();
			}
		}

		private ConcurrentHashMap<String, State> family(LockType type) {
			return this.states[((type == LockType.READ) ? LockType.WRITE : type).ordinal()];
		}

		State state(String key, LockType type) {
			ConcurrentHashMap<String, State> map = family(type);
			State state = map.get(key);
			if (state == null) {
				State created = new State();
				state = map.putIfAbsent(key, created);
				return (state != null) ? state : created;
			}
			return state;
		}

		@Nullable State existing(String key, LockType type) {
			return family(type).get(key);
		}

		void dropIfUnused(String key, LockType type, State state) {
			synchronized (state) {
				state.purge(System.nanoTime());
				if (state.dead || !state.isUnused()) {
					return;
				}
				state.dead = true;
			}
			family(type).remove(key, state);
		}

	}

	/** One lock's holders, FAIR queue and waiters; guarded by its own monitor. */
	private static final class State {

		private @Nullable LocalHold single;

		private @Nullable List<LocalHold> others;

		private @Nullable LinkedHashMap<LockAttempt, Long> queue;

		private @Nullable List<Runnable> listeners;

		/** Set once it is removed from the store; users then look it up again. */
		private boolean dead;

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

		void add(LocalHold hold) {
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

		boolean holds(LocalHold hold) {
			return this.single == hold || (this.others != null && this.others.contains(hold));
		}

		boolean remove(LocalHold hold) {
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
		 * @return 0 if the attempt may take the lock now, else the nano time at which the blocking lease ends, or
		 * -1 when that is unknown (a FAIR waiter queued ahead)
		 */
		long blockedUntil(LockAttempt attempt, long now) {
			if (attempt.type() == LockType.SEMAPHORE) {
				return (count() < attempt.permits()) ? 0 : earliest(now);
			}
			long until = 0;
			if (this.single != null) {
				until = blocking(attempt, this.single, until);
				if (this.others != null) {
					for (LocalHold hold : this.others) {
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

		private static long blocking(LockAttempt attempt, LocalHold hold, long until) {
			boolean conflicts = attempt.type() != LockType.READ || hold.attempt.type() == LockType.WRITE;
			if (!conflicts) {
				return until;
			}
			return (until == 0) ? hold.expiryNanos : Math.min(until, hold.expiryNanos);
		}

		private long earliest(long now) {
			long earliest = (this.single != null) ? this.single.expiryNanos : Long.MAX_VALUE;
			if (this.others != null) {
				for (LocalHold hold : this.others) {
					earliest = Math.min(earliest, hold.expiryNanos);
				}
			}
			return (earliest == Long.MAX_VALUE) ? now + TimeUnit.MILLISECONDS.toNanos(1) : earliest;
		}

	}

}
