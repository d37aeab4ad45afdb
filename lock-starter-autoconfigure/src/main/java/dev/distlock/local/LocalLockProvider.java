package dev.distlock.local;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.core.spi.TryOnceLockProvider;

/**
 * The in-JVM backend, named {@code local}: the reference implementation of the provider
 * contract and a real choice for tests and single-instance applications. Every
 * {@link LockType}; leases end at their expiry on this JVM's monotonic clock (a fixed
 * lease nobody released frees the lock then); fencing tokens come from one counter seeded
 * from the wall clock, so they strictly increase per key, across restarts too; release
 * wakes waiters directly. FAIR waiters keep their queue place while they keep trying; a
 * place not refreshed for {@link #FAIR_WAITER_TIMEOUT} is dropped so a dead waiter cannot
 * block the queue.
 * <p>
 * MUTEX, FAIR, READ/WRITE and SEMAPHORE of one key are separate locks, as on the other
 * backends. Instances made with {@link #LocalLockProvider(LocalLockProvider)} share
 * state, which stands for two processes sharing one backend.
 *
 * @since 0.1.0
 */
public final class LocalLockProvider implements TryOnceLockProvider<LocalLockProvider.LocalHold> {

	/** How long a FAIR waiter keeps its queue place without trying again. */
	public static final Duration FAIR_WAITER_TIMEOUT = Duration.ofSeconds(5);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	private final LocalLockStore store;

	/** Creates a provider with its own, empty state. */
	public LocalLockProvider() {
		this.store = new LocalLockStore();
	}

	/**
	 * Creates a provider that shares the other's state, as two processes share a backend.
	 * @param shareLocalLockStateWith the provider whose locks this one sees
	 */
	public LocalLockProvider(LocalLockProvider shareLocalLockStateWith) {
		this.store = shareLocalLockStateWith.store;
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
	public AttemptOutcome<LocalHold> tryAcquire(LockAttempt attempt) {
		while (true) {
			LocalLockState state = this.store.state(attempt.key(), attempt.type());
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
					return AttemptOutcome.acquired(hold);
				}
				if (attempt.type() == LockType.FAIR) {
					state.queue().put(attempt, now + FAIR_WAITER_TIMEOUT.toNanos());
				}
				return AttemptOutcome.busy((blockedUntil > 0) ? Duration.ofNanos(blockedUntil - now) : null);
			}
		}
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) {
		while (true) {
			LocalLockState state = this.store.state(attempt.key(), attempt.type());
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
		LocalLockState state = hold.state;
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
		LocalLockState state = hold.state;
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
		LocalLockState state = this.store.existing(attempt.key(), attempt.type());
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
	 * Breaks a lock behind its holders' backs, as an operator or a crash would: every
	 * holder of the attempt's lock loses it. For tests of lost-lease handling.
	 * @param key the full key
	 * @param type the lock type
	 */
	public void clear(String key, LockType type) {
		LocalLockState state = this.store.existing(key, type);
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
		return this.store.live();
	}

	/**
	 * Number of lock states kept in memory, unused ones (kept for reuse until a sweep)
	 * included.
	 * @return the number of lock states
	 */
	int retainedStates() {
		return this.store.retained();
	}

	/** A granted local lock: the holder's attempt, its token and its expiry. */
	static final class LocalHold implements HeldLock {

		final LockAttempt attempt;

		private final long fencingToken;

		final LocalLockState state;

		long expiryNanos; // guarded by state

		LocalHold(LockAttempt attempt, long fencingToken, LocalLockState state, long expiryNanos) {
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

}
