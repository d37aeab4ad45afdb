package dev.distlock.redisson;

import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import org.jspecify.annotations.Nullable;

/**
 * A lock granted by a Redisson backend: the attempt, the synthetic owner id Redisson
 * stored it under (as {@code <client id>:<ownerId>}), the permit id of a SEMAPHORE and
 * the fencing token.
 *
 * @param attempt the attempt it was granted to
 * @param ownerId the owner id passed to Redisson in place of a thread id
 * @param permitId the permit of a SEMAPHORE, else {@code null}
 * @param fencingToken the fencing token
 */
record RedissonHeldLock(LockAttempt attempt, long ownerId, @Nullable String permitId,
		long fencingToken) implements HeldLock {

	private static final AtomicLong ownerIds = new AtomicLong();

	/**
	 * A new synthetic owner id: unique in this JVM (hence per client, whose id Redisson
	 * puts in front) and negative, so it never equals a thread id of code that uses the
	 * same client's locks the usual way.
	 * @return the id
	 */
	static long nextOwnerId() {
		return -ownerIds.incrementAndGet();
	}

	/**
	 * A lock granted with the token taken after Redisson's grant.
	 * @param attempt the attempt
	 * @param ownerId its owner id
	 * @param permitId the permit of a SEMAPHORE, else {@code null}
	 * @param token the reply of the script that took the token: 0 or {@code null} if the
	 * lock was gone by then
	 * @return the held lock
	 * @throws IllegalStateException if the lease ran out before the token could be taken
	 */
	static RedissonHeldLock withToken(LockAttempt attempt, long ownerId, @Nullable String permitId,
			@Nullable Long token) {
		if (token == null || token <= 0) {
			throw new IllegalStateException("The lease of " + attempt + " (" + attempt.lease()
					+ ") ran out before its fencing token could be taken; use a longer lease");
		}
		return new RedissonHeldLock(attempt, ownerId, permitId, token);
	}

	String permit() {
		if (this.permitId == null) {
			throw new IllegalStateException(this.attempt + " holds no semaphore permit");
		}
		return this.permitId;
	}

}
