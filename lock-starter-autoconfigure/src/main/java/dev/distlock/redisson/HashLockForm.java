package dev.distlock.redisson;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * The lock types Redisson keeps as a hash of holder field to hold count, with the lease
 * as the hash's expiry: each constant names the Redisson lock object of its type; they
 * differ only where Redisson's layouts do (a MUTEX is tried first with distlock's own
 * script, a reader keeps per-hold keys, a fair lock has a queue to leave).
 */
enum HashLockForm implements RedissonLockForm {

	/**
	 * A Redisson lock: one try with a script on its layout that also takes the fencing
	 * token (one round trip); if busy, Redisson's own waiting on the {@code RLock} of the
	 * same hash, then the token. Released by a script on the same layout (one round
	 * trip).
	 */
	MUTEX(false) {

		@Override
		RLock lock(RedissonClient client, String name) {
			return client.getLock(name);
		}

		/**
		 * Tries with the script, then lets Redisson wait for at most
		 * {@link #WAIT_SLICE_MILLIS} at a time, trying again in between until the wait
		 * ends: Redisson waits for a release's message up to the lock's remaining lease,
		 * and a message it misses (seen in about one hand-over in several thousand
		 * between two processes: the lock free, the waiter subscribed to its channel, and
		 * still waiting) would otherwise hold the waiter for the whole lease.
		 */
		@Override
		public @Nullable RedissonHeldLock acquire(RedissonNode node, LockAttempt attempt, PendingAcquisition state,
				long retentionMillis) throws Exception {
			while (true) {
				attempt.markSent();
				Long token = RedissonNode.await(state.track(node.acquireMutex(RedissonLockKeys.of(attempt),
						state.ownerId(), RedissonLockScripts.leaseMillis(attempt), retentionMillis)), state.deadline());
				if (token != null) {
					return new RedissonHeldLock(attempt, state.ownerId(), null, token);
				}
				if (state.waitMillis() <= 0) {
					return null;
				}
				RedissonHeldLock held = super.acquire(node, attempt, state, retentionMillis);
				if (held != null || state.waitMillis() <= 0) {
					return held;
				}
			}
		}

		@Override
		long redissonWaitMillis(PendingAcquisition state) {
			return Math.min(state.waitMillis(), WAIT_SLICE_MILLIS);
		}

		/**
		 * The owner-checked release of {@link RedissonLockScripts#RELEASE_MUTEX}:
		 * Redisson's unlock without its per-release latch key, in one round trip.
		 */
		@Override
		public CompletableFuture<Boolean> release(RedissonNode node, RedissonHeldLock held) {
			return node.releaseMutex(RedissonLockKeys.of(held.attempt()), held.ownerId());
		}

		@Override
		CompletableFuture<Boolean> releaseAbandoned(RedissonNode node, LockAttempt attempt, long ownerId) {
			return node.releaseMutex(RedissonLockKeys.of(attempt), ownerId);
		}

	},

	/** Redisson's fair lock; a waiter that gives up also leaves its queue. */
	FAIR(false) {

		@Override
		RLock lock(RedissonClient client, String name) {
			return client.getFairLock(name);
		}

		@Override
		CompletableFuture<Boolean> releaseAbandoned(RedissonNode node, LockAttempt attempt, long ownerId) {
			RedissonLockKeys names = RedissonLockKeys.of(attempt);
			CompletableFuture<Long> left = node.eval(RedissonLockScripts.LEAVE_FAIR_QUEUE,
					List.of(names.fairQueue(), names.fairTimeouts()), node.holder(ownerId, attempt.type()),
					String.valueOf(node.client().getConfig().getFairLockWaitTimeout()));
			return super.releaseAbandoned(node, attempt, ownerId).thenCombine(left, (freed, ignored) -> freed);
		}

	},

	/**
	 * The read lock of a Redisson read-write lock, whose every hold has a key of its own.
	 */
	READ(true) {

		@Override
		RLock lock(RedissonClient client, String name) {
			return client.getReadWriteLock(name).readLock();
		}

	},

	/** The write lock of a Redisson read-write lock. */
	WRITE(false) {

		@Override
		RLock lock(RedissonClient client, String name) {
			return client.getReadWriteLock(name).writeLock();
		}

	};

	/**
	 * Longest one call of Redisson's waiting for a MUTEX lasts before the lock is tried
	 * again.
	 */
	static final long WAIT_SLICE_MILLIS = 1000;

	private final boolean perHoldKeys;

	HashLockForm(boolean perHoldKeys) {
		this.perHoldKeys = perHoldKeys;
	}

	/**
	 * The form of a lock type Redisson keeps as a hash.
	 * @param type MUTEX, FAIR, READ or WRITE
	 * @return its form
	 */
	static HashLockForm of(LockType type) {
		return valueOf(type.name());
	}

	/**
	 * The Redisson lock object of this type.
	 * @param client the client
	 * @param name the lock's name
	 * @return the lock
	 */
	abstract RLock lock(RedissonClient client, String name);

	/**
	 * Redisson grants the lock, waiting its own way; the grant may come from any of the
	 * requests Redisson sends while it waits, which distlock cannot see. So the lease is
	 * restarted when the token is taken, in a second request marked as sent: the lease
	 * the core counts from that mark ends before the one Redis keeps.
	 */
	@Override
	public @Nullable RedissonHeldLock acquire(RedissonNode node, LockAttempt attempt, PendingAcquisition state,
			long retentionMillis) throws Exception {
		RLock lock = lock(node.client(), RedissonLockKeys.of(attempt).lock());
		long leaseMillis = RedissonLockScripts.leaseMillis(attempt);
		Boolean locked = RedissonNode.await(state.trackWait(RedissonNode.call(() -> lock
			.tryLockAsync(redissonWaitMillis(state), leaseMillis, TimeUnit.MILLISECONDS, state.ownerId()))),
				state.deadline());
		if (!Boolean.TRUE.equals(locked)) {
			return null;
		}
		state.granted(null);
		attempt.markSent();
		Long token = RedissonNode.await(extend(node, attempt, state.ownerId(), leaseMillis, true, retentionMillis),
				state.deadline());
		return RedissonHeldLock.withToken(attempt, state.ownerId(), null, token);
	}

	/**
	 * How long Redisson may wait in one call: the whole wait left, except for a MUTEX.
	 */
	long redissonWaitMillis(PendingAcquisition state) {
		return state.waitMillis();
	}

	@Override
	public CompletableFuture<Long> renew(RedissonNode node, RedissonHeldLock held, long leaseMillis,
			long retentionMillis) {
		return extend(node, held.attempt(), held.ownerId(), leaseMillis, false, retentionMillis);
	}

	/**
	 * Restarts the lease if the owner still holds the lock, optionally taking the next
	 * fencing token in the same script.
	 * @return 0 if no longer held, else the token ({@code fence}) or 1
	 */
	private CompletableFuture<Long> extend(RedissonNode node, LockAttempt attempt, long ownerId, long leaseMillis,
			boolean fence, long retentionMillis) {
		RedissonLockKeys names = RedissonLockKeys.of(attempt);
		String holder = node.holder(ownerId, attempt.type());
		List<Object> keys = new ArrayList<>(3);
		keys.add(names.lock());
		if (this.perHoldKeys) {
			keys.add(names.readHolds(holder));
		}
		if (fence) {
			keys.add(names.fence());
		}
		LuaScript script = this.perHoldKeys ? RedissonLockScripts.EXTEND_READ : RedissonLockScripts.EXTEND_HASH;
		return node.eval(script, keys, holder, String.valueOf(leaseMillis),
				RedissonLockScripts.retention(retentionMillis, leaseMillis));
	}

	@Override
	public CompletableFuture<Boolean> release(RedissonNode node, RedissonHeldLock held) {
		return RedissonNode.unlock(lock(node.client(), RedissonLockKeys.of(held.attempt()).lock()), held.ownerId());
	}

	/**
	 * Cancels Redisson's waiting; once the last request that may have granted the lock
	 * has an outcome, releases under the attempt's owner id (owner-checked, so never
	 * another's lock) in the background: once if it was granted, until surely nothing is
	 * held if its outcome is unknown, not at all if it was refused.
	 */
	@Override
	public void abandon(RedissonNode node, LockAttempt attempt, PendingAcquisition state) {
		Supplier<CompletableFuture<Boolean>> release = () -> releaseAbandoned(node, attempt, state.ownerId());
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RedissonLockScripts.leaseMillis(attempt));
		state.stop().whenComplete((reply, ex) -> {
			if (state.isGranted() || reply instanceof Long || Boolean.TRUE.equals(reply)) {
				node.releaseLate(release, 1, until, attempt);
			}
			else if (ex != null) {
				node.releaseUnknown(release, until, attempt);
			}
		});
	}

	/**
	 * One owner-checked release of what an abandoned acquisition may hold.
	 * @param node the node
	 * @param attempt the attempt
	 * @param ownerId its owner id
	 * @return {@code true} if a hold was freed
	 */
	CompletableFuture<Boolean> releaseAbandoned(RedissonNode node, LockAttempt attempt, long ownerId) {
		return RedissonNode.unlock(lock(node.client(), RedissonLockKeys.of(attempt).lock()), ownerId);
	}

}
