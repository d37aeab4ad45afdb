package dev.distlock.core.internal;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.Lease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Lease#onLost(Runnable) lost callbacks} of one lease: each runs exactly once,
 * even when one is added while the loss is being reported (whoever removes a callback
 * runs it). The first callback is kept in a field and only further ones in a list, so a
 * lease with one callback (the common case, one per held lease at a hundred thousand
 * leases) costs one small object.
 */
final class LostCallbacks {

	private static final Log logger = LogFactory.getLog(LostCallbacks.class);

	private final String key;

	/** The first callback not run yet (guarded by this). */
	private @Nullable Runnable first;

	/** Further callbacks not run yet (guarded by this). */
	private @Nullable List<Runnable> more;

	LostCallbacks(String key) {
		this.key = key;
	}

	/** Adds a callback; runs it at once if the lease is already lost. */
	void add(Runnable callback, boolean alreadyLost) {
		synchronized (this) {
			if (this.first == null) {
				this.first = callback;
			}
			else {
				if (this.more == null) {
					this.more = new ArrayList<>(2);
				}
				this.more.add(callback);
			}
		}
		if (alreadyLost) {
			runOnce(callback);
		}
	}

	/** Runs every callback not run yet. */
	void fire() {
		List<Runnable> current = new ArrayList<>(2);
		synchronized (this) {
			if (this.first != null) {
				current.add(this.first);
			}
			if (this.more != null) {
				current.addAll(this.more);
			}
		}
		for (Runnable callback : current) {
			runOnce(callback);
		}
	}

	private void runOnce(Runnable callback) {
		if (take(callback)) {
			try {
				callback.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Lost-lease callback of lock '" + this.key + "' failed", ex);
			}
		}
	}

	/** Removes a callback not run yet: whoever removes it runs it. */
	private synchronized boolean take(Runnable callback) {
		if (this.first == callback) {
			this.first = null;
			return true;
		}
		return this.more != null && this.more.remove(callback);
	}

}
