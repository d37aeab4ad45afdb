package dev.distlock.core;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Fans one event out to every registered {@link LockListener}, logging and ignoring a listener's exception. The
 * template holds none at all when no listener is registered, so the hot path pays nothing for observability it
 * does not use.
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
		for (LockListener listener : this.listeners) {
			try {
				listener.acquiring(request, provider);
			}
			catch (RuntimeException ex) {
				failed(listener, ex);
			}
		}
	}

	@Override
	public void acquired(Lease lease, String provider, long waitNanos) {
		for (LockListener listener : this.listeners) {
			try {
				listener.acquired(lease, provider, waitNanos);
			}
			catch (RuntimeException ex) {
				failed(listener, ex);
			}
		}
	}

	@Override
	public void acquireFailed(LockRequest request, String provider, long waitNanos, @Nullable Throwable error) {
		for (LockListener listener : this.listeners) {
			try {
				listener.acquireFailed(request, provider, waitNanos, error);
			}
			catch (RuntimeException ex) {
				failed(listener, ex);
			}
		}
	}

	@Override
	public void released(Lease lease, String provider, long heldNanos) {
		for (LockListener listener : this.listeners) {
			try {
				listener.released(lease, provider, heldNanos);
			}
			catch (RuntimeException ex) {
				failed(listener, ex);
			}
		}
	}

	@Override
	public void renewed(Lease lease, String provider) {
		for (LockListener listener : this.listeners) {
			try {
				listener.renewed(lease, provider);
			}
			catch (RuntimeException ex) {
				failed(listener, ex);
			}
		}
	}

	@Override
	public void lost(Lease lease, String provider, String reason) {
		for (LockListener listener : this.listeners) {
			try {
				listener.lost(lease, provider, reason);
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
