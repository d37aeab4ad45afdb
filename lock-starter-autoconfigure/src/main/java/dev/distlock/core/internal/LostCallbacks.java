package dev.distlock.core.internal;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.Lease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The {@link Lease#onLost(Runnable) lost callbacks} of one lease: each runs exactly once,
 * even when one is added while the loss is being reported (whoever removes a callback
 * from the list runs it).
 */
final class LostCallbacks {

	private static final Log logger = LogFactory.getLog(LostCallbacks.class);

	private final List<Runnable> callbacks = new ArrayList<>(2);

	private final String key;

	LostCallbacks(String key) {
		this.key = key;
	}

	/** Adds a callback; runs it at once if the lease is already lost. */
	void add(Runnable callback, boolean alreadyLost) {
		synchronized (this.callbacks) {
			this.callbacks.add(callback);
		}
		if (alreadyLost) {
			runOnce(callback);
		}
	}

	/** Runs every callback not run yet. */
	void fire() {
		Runnable[] current;
		synchronized (this.callbacks) {
			current = this.callbacks.toArray(new Runnable[0]);
		}
		for (Runnable callback : current) {
			runOnce(callback);
		}
	}

	private void runOnce(Runnable callback) {
		boolean mine;
		synchronized (this.callbacks) {
			mine = this.callbacks.remove(callback);
		}
		if (mine) {
			try {
				callback.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Lost-lease callback of lock '" + this.key + "' failed", ex);
			}
		}
	}

}
