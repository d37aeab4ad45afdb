package dev.distlock.redisson;

import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.RenewalOutcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.command.CommandAsyncExecutor;
import org.redisson.pubsub.LockPubSub;

/**
 * One Redis deployment reached through one {@link RedissonClient}, as both Redisson
 * providers use it: the application's client for {@code redisson} (whatever deployment it
 * talks to), one client per independent server for {@code redisson-quorum}. It makes the
 * calls both need on Redisson's lock layout (the scripts, Redisson's unlock, the health
 * probe), bounds a reply by a deadline without touching Redisson's own future (so a reply
 * that comes later is still seen), and releases in the background what an owner may hold
 * after an acquisition whose reply did not come in time: a late grant is released with
 * its own owner id, never left to its lease.
 */
final class RedissonNode {

	private static final Log logger = LogFactory.getLog(RedissonNode.class);

	/**
	 * How many "not held" answers in a row end the release of an acquisition whose
	 * outcome is unknown.
	 */
	private static final int CONFIRMATIONS_OF_UNKNOWN = 2;

	private final RedissonClient client;

	private final String clientId;

	/**
	 * The client's command executor, through which the scripts go as Redisson's own locks
	 * send theirs; {@code null} for a client that is not a {@link Redisson}.
	 */
	private final @Nullable CommandAsyncExecutor executor;

	/**
	 * How long a background release waits before asking again after a failure or a "not
	 * held" to confirm.
	 */
	private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	RedissonNode(RedissonClient client) {
		this.client = client;
		this.clientId = client.getId();
		this.executor = (client instanceof Redisson redisson) ? redisson.getCommandExecutor() : null;
	}

	RedissonClient client() {
		return this.client;
	}

	/**
	 * The field Redisson stores an owner under in a lock's hash on this node.
	 * @param ownerId the synthetic owner id
	 * @param type the lock type
	 * @return the field
	 */
	String holder(long ownerId, LockType type) {
		return RedissonLockKeys.holder(this.clientId, ownerId, type);
	}

	/**
	 * Runs one of the package's scripts on this node.
	 * @param script the script
	 * @param keys its keys, all in one hash slot
	 * @param args its arguments
	 * @return the reply; failed, never thrown, if the call could not even be sent
	 */
	CompletableFuture<Long> eval(LuaScript script, List<Object> keys, Object... args) {
		return call(() -> script.evalLong(this.client, this.executor, keys, args));
	}

	/**
	 * One MUTEX try with {@link RedissonLockScripts#ACQUIRE_MUTEX}, which also takes the
	 * fencing token.
	 * @param keys the lock's names
	 * @param ownerId the owner id
	 * @param leaseMillis the lease
	 * @param retentionMillis the fence retention
	 * @return the token if granted, {@code null} if busy
	 */
	CompletableFuture<@Nullable Long> acquireMutex(RedissonLockKeys keys, long ownerId, long leaseMillis,
			long retentionMillis) {
		return eval(RedissonLockScripts.ACQUIRE_MUTEX, List.of(keys.lock(), keys.fence()),
				holder(ownerId, LockType.MUTEX), String.valueOf(leaseMillis),
				RedissonLockScripts.retention(retentionMillis, leaseMillis))
			.thenApply((token) -> (token != null && token > 0) ? token : null);
	}

	/**
	 * Redisson's owner-checked unlock of a lock held under an owner id.
	 * @param lock the lock
	 * @param ownerId the owner id
	 * @return {@code true} if a hold was released, {@code false} if the owner held none
	 */
	static CompletableFuture<Boolean> unlock(RLock lock, long ownerId) {
		return call(() -> lock.unlockAsync(ownerId)).handle((done, ex) -> {
			if (ex == null) {
				return true;
			}
			if (unwrap(ex) instanceof IllegalMonitorStateException) {
				return false;
			}
			throw new CompletionException(unwrap(ex));
		});
	}

	/**
	 * Owner-checked MUTEX release with {@link RedissonLockScripts#RELEASE_MUTEX}: ends
	 * the owner's hold and wakes Redisson's waiters on the lock's channel, as Redisson's
	 * unlock does, in one round trip.
	 * @param keys the lock's names
	 * @param ownerId the owner id
	 * @return {@code true} if a hold was released, {@code false} if the owner held none
	 */
	CompletableFuture<Boolean> releaseMutex(RedissonLockKeys keys, long ownerId) {
		return eval(RedissonLockScripts.RELEASE_MUTEX, List.of(keys.lock(), keys.lockChannel()),
				holder(ownerId, LockType.MUTEX), LockPubSub.UNLOCK_MESSAGE, publishCommand())
			.thenApply((released) -> released != null && released == 1L);
	}

	/**
	 * The command Redisson publishes lock messages with on this client: {@code spublish}
	 * where it uses sharded pub/sub, else {@code publish}.
	 */
	private String publishCommand() {
		return (this.executor != null) ? this.executor.getConnectionManager().getSubscribeService().getPublishCommand()
				: "publish";
	}

	/**
	 * The health probe: an {@code EXISTS} on a key, which writes nothing.
	 * @param key the key
	 * @return the reply
	 */
	CompletableFuture<Long> probe(String key) {
		return call(() -> this.client.getKeys().countExistsAsync(key));
	}

	/**
	 * Releases in the background what an owner may hold after its acquisition was given
	 * up, once the request that may have granted it has an outcome (the client answered
	 * or gave up on it): repeats an owner-checked release, one at a time, until it
	 * answers "not held" {@code confirmations} times in a row, or until
	 * {@code untilNanos}, when the lease has ended anyway. A grant whose request was
	 * still held by a silent network when the client gave up on it runs when the network
	 * heals, together with everything else held back, perhaps after a release sent in the
	 * silence: so after a "not held" answer the next release is sent a second later, when
	 * whatever was held back has arrived, and a release that fails is sent again a second
	 * later.
	 * @param release one owner-checked release: {@code true} if it freed a hold,
	 * {@code false} if nothing was held
	 * @param confirmations "not held" answers in a row that end it: 1 when the grant was
	 * answered (it ran), more when its outcome is unknown
	 * @param untilNanos when to stop ({@link System#nanoTime()})
	 * @param what what is released, for the log
	 */
	void releaseLate(Supplier<CompletableFuture<Boolean>> release, int confirmations, long untilNanos, Object what) {
		long left = untilNanos - System.nanoTime();
		if (confirmations <= 0 || left <= 0) {
			return;
		}
		call(release).copy().orTimeout(left, TimeUnit.NANOSECONDS).whenComplete((freed, ex) -> {
			if (ex != null) {
				if (logger.isDebugEnabled()) {
					logger.debug("Release of " + what + " failed; asking again", ex);
				}
				CompletableFuture.delayedExecutor(RETRY_NANOS, TimeUnit.NANOSECONDS)
					.execute(() -> releaseLate(release, confirmations, untilNanos, what));
			}
			else if (Boolean.TRUE.equals(freed)) {
				releaseLate(release, confirmations, untilNanos, what);
			}
			else if (confirmations > 1) {
				CompletableFuture.delayedExecutor(RETRY_NANOS, TimeUnit.NANOSECONDS)
					.execute(() -> releaseLate(release, confirmations - 1, untilNanos, what));
			}
		});
	}

	/**
	 * {@link #releaseLate} for an acquisition whose outcome is unknown.
	 * @param release one owner-checked release
	 * @param untilNanos when the lease has ended anyway
	 * @param what what is released, for the log
	 */
	void releaseUnknown(Supplier<CompletableFuture<Boolean>> release, long untilNanos, Object what) {
		releaseLate(release, CONFIRMATIONS_OF_UNKNOWN, untilNanos, what);
	}

	/**
	 * Starts a call; a call that throws at once fails the same way as one whose reply
	 * failed.
	 * @param call the call
	 * @return its reply
	 */
	static <T> CompletableFuture<T> call(Supplier<? extends CompletionStage<T>> call) {
		try {
			return call.get().toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * A reply bounded by a deadline: fails with a {@link TimeoutException} then, while
	 * Redisson's own future is left to complete (or fail) on its own.
	 * @param reply the reply
	 * @param deadlineNanos the deadline ({@link System#nanoTime()})
	 * @return the bounded reply
	 */
	static <T> CompletableFuture<T> until(CompletableFuture<T> reply, long deadlineNanos) {
		return reply.copy().orTimeout(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	/**
	 * Waits for a reply until a deadline, rethrowing its failure as it is.
	 * @param reply the reply
	 * @param deadlineNanos the deadline ({@link System#nanoTime()})
	 * @return the reply
	 * @throws TimeoutException if it did not come by the deadline
	 * @throws InterruptedException if the waiting thread was interrupted
	 * @throws Exception the reply's failure
	 */
	static <T> @Nullable T await(CompletableFuture<T> reply, long deadlineNanos) throws Exception {
		try {
			return reply.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = unwrap(ex);
			if (cause instanceof Exception exception) {
				throw exception;
			}
			throw ex;
		}
		catch (TimeoutException ex) {
			throw new TimeoutException(
					"Redis did not answer in time (distlock.call-timeout, or the wait time plus it)");
		}
	}

	/**
	 * One lease's renewal outcome as {@code LockProvider.renew} answers it.
	 * @param outcome the outcome
	 * @return {@code true} if renewed, {@code false} if no longer held
	 * @throws Exception the failure of a renewal whose outcome is unknown
	 */
	static boolean renewed(RenewalOutcome outcome) throws Exception {
		Exception failure = outcome.failure();
		if (failure != null) {
			throw failure;
		}
		return outcome.isRenewed();
	}

	/**
	 * Whether a call failed because the client could not connect, so its command never
	 * reached Redis.
	 * @param ex the call's failure
	 * @return {@code true} if nothing was sent
	 */
	static boolean neverSent(Throwable ex) {
		Throwable cause = ex;
		// bounded: a chain of causes may loop
		for (int depth = 0; cause != null && depth < 16; depth++, cause = cause.getCause()) {
			if (cause instanceof RedisConnectionException || cause instanceof ConnectException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The failure behind the wrappers futures add.
	 * @param ex a failure
	 * @return its cause
	 */
	static Throwable unwrap(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof ExecutionException || cause instanceof CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
