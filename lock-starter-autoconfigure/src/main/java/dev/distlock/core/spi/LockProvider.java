package dev.distlock.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The backend SPI: one implementation per backend, driven by {@code LockTemplate}. The
 * core owns re-entry, local queueing of threads that want the same key, leases, their
 * clock and renewal, and lost-lease handling. A backend supplies
 * {@link #acquire(LockAttempt, LockWaiter)} (waiting at most until the waiter's deadline;
 * a backend that lets the core run the wait loop implements {@link TryOnceLockProvider}
 * instead), {@link #renew}, {@link #renewAll(List, Duration)} and {@link #release}
 * (owner-only, atomic), and {@link #abandon(LockAttempt)}, which the core calls in the
 * background to clean up after an attempt it gave up on. A granted lock is a handle of
 * the backend's own type {@code H}, handed back to {@link #renew} and {@link #release}.
 * <p>
 * Implementations are thread-safe. Every method may be called from any thread: ownership
 * is the attempt's {@link LockAttempt#owner() owner token}, never the calling thread. See
 * docs/write-a-backend.md.
 *
 * @param <H> the backend's handle on a granted lock
 * @since 0.1.0
 */
public interface LockProvider<H extends HeldLock> {

	/** The default {@link #minimumLease()}. */
	Duration ONE_MILLISECOND = Duration.ofMillis(1);

	/**
	 * The name users select this provider by ({@code distlock.provider},
	 * {@code @DistributedLock(provider = ...)}).
	 * @return the name, e.g. {@code redis}
	 */
	String name();

	/**
	 * The lock types this backend implements.
	 * @return the supported types
	 */
	Set<LockType> supportedTypes();

	/**
	 * The shortest fixed lease this backend honours as asked. A request for a shorter one
	 * fails with {@link LockConfigurationException} when it is made, never silently
	 * rounded up. The default is a millisecond.
	 * @return the minimum lease
	 */
	default Duration minimumLease() {
		return ONE_MILLISECOND;
	}

	/**
	 * Acquires, waiting at most until the waiter's deadline
	 * ({@link LockWaiter#isTryOnce()}: one attempt). Call {@link LockAttempt#markSent()}
	 * before every request that may grant the lock: the lease is counted from there.
	 * @param attempt what to acquire
	 * @param waiter the deadline
	 * @return the granted lock, or {@code null} if the deadline passed
	 * @throws InterruptedException if the waiting thread was interrupted
	 * @throws Exception if the backend failed; the outcome is then unknown and the core
	 * calls {@link #abandon(LockAttempt)}
	 */
	@Nullable H acquire(LockAttempt attempt, LockWaiter waiter) throws Exception;

	/**
	 * Extends the lease of a held lock to {@code lease} from now, only if the owner still
	 * holds it.
	 * @param lock the held lock
	 * @param lease the new lease
	 * @return {@code true} if extended, {@code false} if the owner no longer holds the
	 * lock
	 * @throws Exception if the backend failed (the outcome is unknown; the core retries
	 * until the lease ends)
	 */
	boolean renew(H lock, Duration lease) throws Exception;

	/**
	 * Renews many leases at once: what the watchdog sends when renewals fall due
	 * together. Override it where the backend can do it in one round trip (a script, a
	 * pipeline, one statement); the default renews one by one. Each lease stands or falls
	 * on its own answer: a reply that failed (a shard or node down, a timeout) makes that
	 * lease's outcome {@link RenewalOutcome#failed failed}, never the others'.
	 * @param locks the held locks, at most a thousand
	 * @param lease the new lease of each, from now
	 * @return for each lock, in order, its outcome
	 */
	default RenewalOutcome[] renewAll(List<H> locks, Duration lease) {
		RenewalOutcome[] outcomes = new RenewalOutcome[locks.size()];
		for (int i = 0; i < outcomes.length; i++) {
			try {
				outcomes[i] = RenewalOutcome.of(renew(locks.get(i), lease));
			}
			catch (Exception ex) {
				outcomes[i] = RenewalOutcome.failed(ex);
			}
		}
		return outcomes;
	}

	/**
	 * Renews many leases as {@link #renewAll(List, Duration)} does, in the background:
	 * returns at once, without waiting for the backend, and hands the outcomes (one per
	 * lock, in order) to {@code answer} later, exactly once, on a thread of the backend's
	 * own. The core calls it from its lease clock, which must never wait for a backend; a
	 * backend that takes its batches so needs no renewal thread of the core. Renewing one
	 * provider's batches one after another on one thread of its own keeps the threads of
	 * holding many leases at that one. The default takes nothing and returns
	 * {@code false}: the core then calls {@link #renewAll(List, Duration)} on its renewal
	 * threads ({@code distlock.watchdog.threads}).
	 * @param locks the held locks, at most a thousand
	 * @param lease the new lease of each, from now
	 * @param answer takes the outcomes; an answer that comes after a lease ran out counts
	 * as lost for that lease
	 * @return whether the backend took the batch (then it calls {@code answer}); if
	 * {@code false}, it did nothing and never calls it
	 * @since 0.6.0
	 */
	default boolean renewAllInBackground(List<H> locks, Duration lease, Consumer<RenewalOutcome[]> answer) {
		return false;
	}

	/**
	 * Releases a held lock, only if its owner still holds it (a stale owner never frees
	 * another's lock), and wakes waiters. Releasing a lock that is no longer held is a
	 * no-op.
	 * @param lock the held lock
	 * @throws Exception if the backend failed
	 */
	void release(H lock) throws Exception;

	/**
	 * Releases a held lock as {@link #release(HeldLock)} does, and runs {@code sent} once
	 * the release is on its way and ordered before every later call of this provider (for
	 * example written to the one connection all calls share): the core then lets the next
	 * thread of this JVM waiting for the key ask the backend while the release's reply is
	 * still in flight. {@code sent} runs exactly once, also when the release fails. The
	 * default releases, then runs it.
	 * @param lock the held lock
	 * @param sent what to run once the release is sent
	 * @throws Exception if the backend failed
	 */
	default void release(H lock, Runnable sent) throws Exception {
		try {
			release(lock);
		}
		finally {
			sent.run();
		}
	}

	/**
	 * Cleans up after an attempt the core gave up on: the wait timed out, or an attempt
	 * failed with an exception so the lock may have been granted without the reply
	 * arriving. Release anything held under the attempt's owner token and leave any wait
	 * queue. Best-effort; must not throw. Runs in the background.
	 * @param attempt the abandoned attempt
	 */
	default void abandon(LockAttempt attempt) {
	}

	/**
	 * Checks that the backend answers, for health indicators: a cheap request that talks
	 * to the server and writes no lock (a PING, a {@code SELECT 1}, a session check). The
	 * default acquires and releases the probe, which does write; every built-in backend
	 * overrides it. Must return or throw within the client's timeouts, never hang.
	 * @param probe an attempt on a key reserved for health checks, with its own owner
	 * token
	 * @throws Exception if the backend did not answer
	 */
	default void checkHealth(LockAttempt probe) throws Exception {
		H lock;
		try {
			lock = acquire(probe, LockWaiter.tryOnce());
		}
		catch (Exception ex) {
			abandon(probe);
			throw ex;
		}
		if (lock != null) {
			release(lock);
		}
	}

	/**
	 * Frees resources (subscriptions, threads). Locks still held stay held until their
	 * leases end.
	 */
	default void close() {
	}

	/**
	 * Whether the backend frees a lock by itself when its lease runs out (a key's expiry,
	 * a row's lease column). A backend whose locks live as long as the holder's session
	 * (ZooKeeper) returns {@code false}; the core's lease clock then watches every lease
	 * of it, fixed ones included, and releases a lease that ran out on the backend.
	 * @return {@code true} unless the holder's process must end its leases
	 */
	default boolean expiresLeases() {
		return true;
	}

}
