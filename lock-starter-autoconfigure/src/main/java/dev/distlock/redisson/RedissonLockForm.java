package dev.distlock.redisson;

import java.util.concurrent.CompletableFuture;

import dev.distlock.core.spi.LockAttempt;
import org.jspecify.annotations.Nullable;

/**
 * How one lock type lives in Redisson: the strategy {@link RedissonLockProvider} picks by
 * the attempt's type. {@link HashLockForm} serves the types Redisson keeps as a lock hash
 * owned by {@code <client id>:<owner id>} (MUTEX, FAIR, READ, WRITE), {@link PermitForm}
 * the SEMAPHORE, whose permits are owned by their permit ids. Every call returns a reply
 * the caller bounds; none blocks except {@link #acquire}, which waits at most until the
 * acquisition's deadline.
 */
interface RedissonLockForm {

	/**
	 * Acquires, with Redisson's own waiting until the end of the acquisition's wait, then
	 * takes the fencing token in a request that restarts the lease (marked as sent, so
	 * the lease is counted from it).
	 * @param node the node
	 * @param attempt what to acquire
	 * @param state the acquisition's owner id and deadlines
	 * @param retentionMillis the fence retention
	 * @return the granted lock, or {@code null} if Redisson did not grant it within the
	 * wait
	 * @throws Exception if a call failed or did not answer by the deadline
	 */
	@Nullable RedissonHeldLock acquire(RedissonNode node, LockAttempt attempt, PendingAcquisition state, long retentionMillis)
			throws Exception;

	/**
	 * Restarts the lease of a held lock, only while its owner holds it.
	 * @param node the node
	 * @param held the held lock
	 * @param leaseMillis the new lease
	 * @param retentionMillis the fence retention
	 * @return 1 if renewed, 0 if the owner no longer holds it
	 */
	CompletableFuture<Long> renew(RedissonNode node, RedissonHeldLock held, long leaseMillis, long retentionMillis);

	/**
	 * Releases a held lock, only if its owner still holds it.
	 * @param node the node
	 * @param held the held lock
	 * @return {@code true} if it freed a hold, {@code false} if nothing was held
	 */
	CompletableFuture<Boolean> release(RedissonNode node, RedissonHeldLock held);

	/**
	 * Cleans up in the background after an acquisition that was given up: stops
	 * Redisson's waiting and releases what the acquisition holds or may still be granted,
	 * with its own owner id (or permit id).
	 * @param node the node
	 * @param attempt the attempt
	 * @param state what it may have taken
	 */
	void abandon(RedissonNode node, LockAttempt attempt, PendingAcquisition state);

}
