package dev.distlock.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.Acquisition;
import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockProvider;
import dev.distlock.core.LockType;
import dev.distlock.core.ReleaseSubscription;

/**
 * The in-JVM backend, named {@code local}: the reference implementation of the provider contract and a real choice
 * for tests and single-instance applications. Every {@link LockType}; leases expire on this JVM's monotonic clock;
 * fencing tokens come from one counter, so they strictly increase per key; release wakes waiters directly. FAIR
 * waiters keep their queue place while they keep trying; a place not refreshed for {@link #FAIR_WAITER_TIMEOUT} is
 * dropped so a dead waiter cannot block the queue.
 * <p>
 * MUTEX, FAIR, READ/WRITE and SEMAPHORE of one key are separate locks, as on the other backends. Instances made with
 * {@link #LocalLockProvider(LocalLockProvider)} share state, which stands for two processes sharing one backend.
 *
 * @since 0.1.0
 */
public final class LocalLockProvider implements LockProvider {

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
	public Acquisition tryAcquire(LockAttempt attempt) {
		while (true) {
			State state = this.store.state(attempt);
			long now = System.nanoTime();
			synchronized (state) {
				if (!state.dead) {
					return tryAcquire(attempt, state, now);
				}
			}
		}
	}

	private Acquisition tryAcquire(LockAttempt attempt, State state, long now) {
		{
			state.purge(now);
			long blockedUntil = state.blockedUntil(attempt, now);
			if (blockedUntil == 0) {
				state.queue.remove(attempt.owner());
				long token = this.store.fence.incrementAndGet();
				state.holders.put(attempt.owner(), new Hold(attempt.type(), now + attempt.lease().toNanos()));
				return Acquisition.acquired(new LocalHeldLock(attempt, token));
			}
			if (attempt.type() == LockType.FAIR) {
				state.queue.put(attempt.owner(), now + FAIR_WAITER_TIMEOUT.toNanos());
			}
			return Acquisition.busy((blockedUntil > 0) ? Duration.ofNanos(blockedUntil - now) : null);
		}
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) {
		State state;
		while (true) {
			state = this.store.state(attempt);
			synchronized (state) {
				if (!state.dead) {
					state.listeners.add(listener);
					break;
				}
			}
		}
		State subscribed = state;
		return () -> {
			subscribed.listeners.remove(listener);
			this.store.dropIfUnused(attempt, subscribed);
		};
	}

	@Override
	public boolean renew(HeldLock lock, Duration lease) {
		LockAttempt attempt = ((LocalHeldLock) lock).attempt();
		State state = this.store.states.get(new StateKey(attempt.key(), Store.family(attempt.type())));
		if (state == null) {
			return false;
		}
		long now = System.nanoTime();
		synchronized (state) {
			state.purge(now);
			Hold hold = state.holders.get(attempt.owner());
			if (hold == null) {
				return false;
			}
			state.holders.put(attempt.owner(), new Hold(hold.type(), now + lease.toNanos()));
			return true;
		}
	}

	@Override
	public void release(HeldLock lock) {
		remove(((LocalHeldLock) lock).attempt());
	}

	@Override
	public void abandon(LockAttempt attempt) {
		remove(attempt);
	}

	private void remove(LockAttempt attempt) {
		State state = this.store.state(attempt);
		List<Runnable> toWake;
		synchronized (state) {
			boolean changed = state.holders.remove(attempt.owner()) != null;
			changed |= state.queue.remove(attempt.owner()) != null;
			toWake = changed ? new ArrayList<>(state.listeners) : List.of();
		}
		toWake.forEach(Runnable::run);
		this.store.dropIfUnused(attempt, state);
	}

	/**
	 * Breaks a lock behind its holders' backs, as an operator or a crash would: every holder of the attempt's lock
	 * loses it. For tests of lost-lease handling.
	 * @param key the full key
	 * @param type the lock type
	 */
	public void clear(String key, LockType type) {
		State state = this.store.states.get(new StateKey(key, Store.family(type)));
		if (state != null) {
			synchronized (state) {
				state.holders.clear();
			}
			state.listeners.forEach(Runnable::run);
		}
	}

	/**
	 * Number of locks with holders, waiters or subscribers, for leak checks in tests.
	 * @return the number of live lock states
	 */
	public int liveLocks() {
		return this.store.states.size();
	}

	private record LocalHeldLock(LockAttempt attempt, long fencingToken) implements HeldLock {
	}

	private record Hold(LockType type, long expiryNanos) {
	}

	private record StateKey(String key, LockType family) {
	}

	private static final class Store {

		private final Map<StateKey, State> states = new ConcurrentHashMap<>();

		private final AtomicLong fence = new AtomicLong();

		static LockType family(LockType type) {
			return (type == LockType.READ) ? LockType.WRITE : type;
		}

		State state(LockAttempt attempt) {
			return this.states.computeIfAbsent(new StateKey(attempt.key(), family(attempt.type())),
					(k) -> new State());
		}

		void dropIfUnused(LockAttempt attempt, State state) {
			this.states.computeIfPresent(new StateKey(attempt.key(), family(attempt.type())), (k, current) -> {
				synchronized (current) {
					current.purge(System.nanoTime());
					if (current == state && current.isUnused()) {
						current.dead = true;
						return null;
					}
					return current;
				}
			});
		}

	}

	private static final class State {

		private final Map<String, Hold> holders = new HashMap<>();

		private final LinkedHashMap<String, Long> queue = new LinkedHashMap<>();

		private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

		/** Set, under this state's monitor, once it is removed from the store; users then look it up again. */
		private boolean dead;

		void purge(long now) {
			this.holders.values().removeIf((hold) -> hold.expiryNanos() - now <= 0);
			this.queue.values().removeIf((until) -> until - now <= 0);
		}

		boolean isUnused() {
			return this.holders.isEmpty() && this.queue.isEmpty() && this.listeners.isEmpty();
		}

		/**
		 * @return 0 if the attempt may take the lock now, else the nano time at which the blocking lease ends, or
		 * -1 when that is unknown (a FAIR waiter queued ahead)
		 */
		long blockedUntil(LockAttempt attempt, long now) {
			long until = 0;
			for (Hold hold : this.holders.values()) {
				if (conflicts(attempt, hold)) {
					until = (until == 0) ? hold.expiryNanos() : Math.min(until, hold.expiryNanos());
				}
			}
			if (attempt.type() == LockType.SEMAPHORE) {
				return (this.holders.size() < attempt.permits()) ? 0 : earliest(now);
			}
			if (until != 0) {
				return until;
			}
			if (attempt.type() == LockType.FAIR) {
				Iterator<String> first = this.queue.keySet().iterator();
				if (first.hasNext() && !first.next().equals(attempt.owner())) {
					return -1;
				}
			}
			return 0;
		}

		private long earliest(long now) {
			long earliest = Long.MAX_VALUE;
			for (Hold hold : this.holders.values()) {
				earliest = Math.min(earliest, hold.expiryNanos());
			}
			return (earliest == Long.MAX_VALUE) ? now + TimeUnit.MILLISECONDS.toNanos(1) : earliest;
		}

		private static boolean conflicts(LockAttempt attempt, Hold hold) {
			return switch (attempt.type()) {
				case READ -> hold.type() == LockType.WRITE;
				case SEMAPHORE -> false;
				default -> true;
			};
		}

	}

}
