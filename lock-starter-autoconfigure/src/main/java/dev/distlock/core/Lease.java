package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A held lock. Ownership belongs to the lease, not to a thread: any thread may
 * {@link #release()} or {@link #extend(Duration)} it, which is what asynchronous code
 * needs. Closing the lease releases it, so it fits try-with-resources.
 * <p>
 * A lease can be lost while held (renewal failed, the backend dropped the lock, a fixed
 * lease ran out); then {@link #isValid()} turns {@code false}, the
 * {@link #onLost(Runnable) lost callbacks} run once, and the work done under it must be
 * treated as unprotected. {@link #fencingToken()} is what lets the protected resource
 * reject a late writer in that case.
 *
 * @since 0.1.0
 */
public interface Lease extends AutoCloseable {

	/**
	 * The key as requested (without {@code distlock.key-prefix}).
	 * @return the key
	 */
	String key();

	/**
	 * The logical name the request gave ({@link LockRequest#name()}), which metrics and
	 * traces use instead of the unbounded key.
	 * @return the name, or {@code null} if none was given
	 */
	default @Nullable String name() {
		return null;
	}

	LockType type();

	/**
	 * The fencing token of this acquisition: strictly greater than the token of every
	 * earlier acquisition of the same lock, across processes. Pass it to the protected
	 * resource and have it refuse a token lower than the last it saw (for example
	 * {@code UPDATE ... SET fencing_token = ? WHERE ... AND fencing_token <= ?}, as
	 * {@code JdbcFencing} writes it; equal passes, so one lease may write twice); that
	 * keeps a holder that paused past its lease from overwriting its successor's work.
	 * Re-entrant acquisitions share the outer acquisition's token.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * When the backend lease ends unless renewed: a conservative local estimate, measured
	 * from when the acquire (or last renewal) request was sent. Under the watchdog it
	 * moves forward with every renewal.
	 * @return the estimated expiry
	 */
	Instant expiresAt();

	/**
	 * Whether the lease is still held: not released, not lost, and not past
	 * {@link #expiresAt()}.
	 * @return {@code true} if still held
	 */
	boolean isValid();

	/**
	 * Asks the backend to hold the lock for {@code duration} from now; only the owner's
	 * token can do so.
	 * @param duration the new lease from now, positive
	 * @throws LockLostException if the lock is no longer held by this lease (it is then
	 * marked lost)
	 * @throws DistributedLockException if the backend fails
	 */
	void extend(Duration duration);

	/**
	 * Extends the lease as {@link #extend(Duration)} does and holds the lock at least
	 * {@code holdAtLeast} from when the extension was granted: a release before then
	 * keeps the lock on the backend until then, as {@link LockRequest#holdAtLeast()} does
	 * from the acquisition (ShedLock's {@code extend(lockAtMostFor,
	 * lockAtLeastFor)}). A hold already set that ends later is kept.
	 * @param duration the new lease from now, positive
	 * @param holdAtLeast the least time from now the lock stays taken, not negative and
	 * not longer than {@code duration}
	 * @throws LockConfigurationException if {@code holdAtLeast} is negative or longer
	 * than {@code duration}
	 * @throws LockLostException if the lock is no longer held by this lease (it is then
	 * marked lost)
	 * @throws DistributedLockException if the backend fails
	 * @since 0.3.0
	 */
	void extend(Duration duration, Duration holdAtLeast);

	/**
	 * Releases the lock if this is the outermost hold; inner re-entrant holds only count
	 * down. Idempotent. Only this lease's owner token is ever released, so releasing a
	 * lease that expired never frees another holder's lock. A backend failure during
	 * release is logged, not thrown: the backend lease then frees the lock when it runs
	 * out.
	 */
	void release();

	/**
	 * Registers a callback run once if the lease is lost while held (never after a normal
	 * release). If the lease is already lost the callback runs at once on the calling
	 * thread.
	 * @param callback the callback
	 * @return this lease
	 */
	Lease onLost(Runnable callback);

	/**
	 * The fencing token of one of the keys of this lease: for a lease of several keys
	 * ({@link LockRequest.Builder#keys(java.util.Collection)}) each key has its own,
	 * which the resource that key protects should check; for a lease of one key it is
	 * {@link #fencingToken()}.
	 * @param key one of the keys, as requested
	 * @return that key's fencing token
	 * @throws IllegalArgumentException if the key is not one of this lease's
	 * @since 0.2.0
	 */
	default long fencingToken(String key) {
		if (!key().equals(key)) {
			throw new IllegalArgumentException("Key '" + key + "' is not the key of this lease ('" + key() + "')");
		}
		return fencingToken();
	}

	/**
	 * Same as {@link #release()}.
	 */
	@Override
	default void close() {
		release();
	}

}
