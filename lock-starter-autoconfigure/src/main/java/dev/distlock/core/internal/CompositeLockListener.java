package dev.distlock.core.internal;

import java.util.List;
import java.util.function.Consumer;

import dev.distlock.core.Lease;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Fans one event out to every registered {@link LockListener}, logging and ignoring a
 * listener's exception. The template holds none at all when no listener is registered, so
 * the hot path pays nothing for observability it does not use.
 */
final class CompositeLockListener implements LockListener {

	private static final Log logger = LogFactory.getLog(CompositeLockListener.class);

	private final LockListener[] listeners;

	private CompositeLockListener(LockListener[] listeners) {
		this.listeners = listeners;
	}

	static @Nullable LockListener of(List<? extends LockListener> listeners) {
		if (listeners.isEmpty()) {
			return null;
		}
		return new CompositeLockListener(listeners.toArray(new LockListener[0]));
	}

	@Override
	public void acquiring(LockRequest request, String provider) {
		each((listener) -> listener.acquiring(request, provider));
	}

	@Override
	public void acquired(Lease lease, String provider, long waitNanos) {
		each((listener) -> listener.acquired(lease, provider, waitNanos));
	}

	@Override
	public void acquireFailed(LockRequest request, String provider, long waitNanos, @Nullable Throwable error) {
		each((listener) -> listener.acquireFailed(request, provider, waitNanos, error));
	}

	@Override
	public void released(Lease lease, String provider, long heldNanos) {
		each((listener) -> listener.released(lease, provider, heldNanos));
	}

	@Override
	public void renewed(Lease lease, String provider) {
		each((listener) -> listener.renewed(lease, provider));
	}

	@Override
	public void lost(Lease lease, String provider, String reason) {
		each((listener) -> listener.lost(lease, provider, reason));
	}

	private void each(Consumer<LockListener> event) {
		for (LockListener listener : this.listeners) {
			try {
				event.accept(listener);
			}
			catch (RuntimeException ex) {
				failed(listener, ex);
			}
		}
	}

	private static void failed(LockListener listener, RuntimeException ex) {
		logger.warn("Lock listener " + listener + " failed", ex);
	}

}
