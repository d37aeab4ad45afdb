package dev.distlock.fencing;

import dev.distlock.core.Lease;
import dev.distlock.core.LockContext;
import org.jspecify.annotations.Nullable;

/**
 * What the fenced stores share: the token of the current lease, and reporting a refusal.
 */
abstract class FencedWriter {

	private final FencingListener listener;

	FencedWriter(FencingListener listener) {
		this.listener = listener;
	}

	/**
	 * The fencing token of the lease current in {@link LockContext}; fails clearly
	 * outside guarded code.
	 */
	static Lease currentLease() {
		return LockContext.findCurrentLease()
			.orElseThrow(() -> new IllegalStateException("A fenced write needs a fencing token: call it inside a "
					+ "@DistributedLock or @LeaderOnly method or a LockTemplate.execute callback, on the thread that "
					+ "runs it, or pass the token (Lease.fencingToken()) explicitly"));
	}

	static long checkToken(long token) {
		if (token < 0) {
			throw new IllegalArgumentException("Fencing token must not be negative, was " + token);
		}
		return token;
	}

	final StaleFencingTokenException refused(String store, @Nullable String name, String resource, long token,
			@Nullable Long recorded) {
		StaleFencingTokenException exception = new StaleFencingTokenException(resource, token, recorded);
		try {
			this.listener.rejected(store, name, exception);
		}
		catch (RuntimeException ex) {
			// a listener must not turn a refusal into another failure
		}
		return exception;
	}

}
