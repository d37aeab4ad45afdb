package dev.distlock.redis;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;

import static dev.distlock.redis.RedisArgs.bytes;

/**
 * A lock granted by Redis.
 *
 * @param attempt the attempt it was granted to
 * @param keys its Redis keys
 * @param fencingToken its fencing token
 */
public record RedisHeldLock(LockAttempt attempt, RedisLockKeys keys, long fencingToken) implements HeldLock {

	byte[] ownerBytes() {
		return bytes(this.attempt.owner());
	}

}
