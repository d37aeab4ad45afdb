package dev.distlock.redisson;

import java.time.Duration;

import dev.distlock.core.spi.LockAttempt;

/**
 * The Lua scripts both Redisson providers run on Redisson's layouts (names from
 * {@link RedissonLockKeys}), each loaded once, and the conventions of their arguments:
 * durations in milliseconds, and how long a fencing counter lives.
 */
final class RedissonLockScripts {

	/** MUTEX acquire with its fencing token, on Redisson's lock layout. */
	static final LuaScript ACQUIRE_MUTEX = LuaScript.load("acquire-mutex.lua");

	/**
	 * MUTEX release on Redisson's lock layout, owner-checked, with Redisson's unlock
	 * message.
	 */
	static final LuaScript RELEASE_MUTEX = LuaScript.load("release-mutex.lua");

	/**
	 * Restarts a hash lock's lease if the owner holds it, optionally taking the token.
	 */
	static final LuaScript EXTEND_HASH = LuaScript.load("extend-hash.lua");

	/** Restarts a reader's lease if it holds the lock, optionally taking the token. */
	static final LuaScript EXTEND_READ = LuaScript.load("extend-read.lua");

	/**
	 * Restarts a permit's lease if it is held, keeps the semaphore alive, optionally
	 * takes the token.
	 */
	static final LuaScript EXTEND_PERMIT = LuaScript.load("extend-permit.lua");

	/** Creates a semaphore with its capacity and an expiry. */
	static final LuaScript SIZE_SEMAPHORE = LuaScript.load("size-semaphore.lua");

	/** Takes an abandoned waiter out of a fair lock's queue. */
	static final LuaScript LEAVE_FAIR_QUEUE = LuaScript.load("leave-fair-queue.lua");

	/**
	 * Quorum lock: lifts a node's counter to the quorum's token while the owner holds the
	 * node's lock.
	 */
	static final LuaScript RAISE_FENCE = LuaScript.load("raise-fence.lua");

	/** Default fence retention of both providers. */
	static final Duration DEFAULT_FENCE_RETENTION = Duration.ofHours(1);

	private RedissonLockScripts() {
	}

	/**
	 * How long a counter (or a semaphore) lives after a grant: the fence retention, or
	 * the lease if that is longer, so that it never goes while the lock it numbers is
	 * held.
	 * @param retentionMillis the fence retention
	 * @param leaseMillis the lease
	 * @return the script argument
	 */
	static String retention(long retentionMillis, long leaseMillis) {
		return String.valueOf(Math.max(retentionMillis, leaseMillis));
	}

	/**
	 * Checks a fence retention a user configured.
	 * @param fenceRetention the retention
	 * @return it in milliseconds
	 * @throws IllegalArgumentException if it is shorter than 1 ms
	 */
	static long retentionMillis(Duration fenceRetention) {
		if (fenceRetention.isNegative() || fenceRetention.toMillis() < 1) {
			throw new IllegalArgumentException("Fence retention must be at least 1 ms, not " + fenceRetention);
		}
		return fenceRetention.toMillis();
	}

	/**
	 * A duration as a script argument: milliseconds, at least 1, and far-future for one
	 * too long to count in them. A fraction of a millisecond is rounded up: Redis keeps a
	 * lease no shorter than the one the holder counts.
	 * @param duration the duration
	 * @return the milliseconds
	 */
	static long millis(Duration duration) {
		try {
			return Math.max(1, duration.plusNanos(999_999).toMillis());
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 4;
		}
	}

	/**
	 * An attempt's lease as a script argument ({@link #millis}).
	 * @param attempt the attempt
	 * @return the lease in milliseconds
	 */
	static long leaseMillis(LockAttempt attempt) {
		return millis(attempt.lease());
	}

}
