package dev.distlock.core;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The leases held by the code running on the current thread: inside a
 * {@code @DistributedLock} method, or inside a {@link LockTemplate#execute} callback,
 * {@link #currentLease()} is the innermost one. This is what lets guarded code pass its
 * {@link Lease#fencingToken() fencing token} to the resource it writes.
 *
 * @since 0.1.0
 */
public final class LockContext {

	private static final ThreadLocal<Deque<Lease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

	private LockContext() {
	}

	/**
	 * The innermost lease of the running guarded code.
	 * @return the lease
	 * @throws IllegalStateException if no guarded code is running on this thread
	 */
	public static Lease currentLease() {
		Lease lease = LEASES.get().peek();
		if (lease == null) {
			throw new IllegalStateException(
					"No lock is held here: LockContext.currentLease() works inside a @DistributedLock method or a "
							+ "LockTemplate.execute callback, on the thread that runs it");
		}
		return lease;
	}

	/**
	 * The innermost lease of the running guarded code, if any.
	 * @return the lease, or empty outside guarded code
	 */
	public static Optional<Lease> findCurrentLease() {
		return Optional.ofNullable(LEASES.get().peek());
	}

	/**
	 * Makes a lease current for the code that runs until the matching
	 * {@link #pop(Lease)}. For integrations that run guarded code themselves;
	 * {@link LockTemplate} and the aspect do this already.
	 * @param lease the lease
	 */
	public static void push(Lease lease) {
		LEASES.get().push(lease);
	}

	/**
	 * Ends what {@link #push(Lease)} started.
	 * @param lease the lease pushed
	 */
	public static void pop(@Nullable Lease lease) {
		// the (empty) deque stays with the thread: dropping it would allocate a new one
		// on every guarded call
		LEASES.get().remove(lease);
	}

}
