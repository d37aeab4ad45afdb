package dev.distlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The leases a template holds, and the {@link LeaseHost} they report to: a lease's end
 * removes it from the table, frees its local queue place and its watch, and (when lost)
 * releases it on the backend in the background; its events reach the listeners. Also the
 * one background thread for clean-up that must never delay a caller.
 */
final class LeaseTable implements LeaseHost<ManagedLease<?>> {

	private static final Log logger = LogFactory.getLog(LeaseTable.class);

	/** Stripes of the table of held leases (a power of two). */
	static final int STRIPES = 16;

	/**
	 * The held leases, in lists linked through the leases themselves (no entry object per
	 * lease), each under its own lock so that threads seldom meet.
	 */
	private final Stripe[] active = new Stripe[STRIPES];

	private final LocalQueue queue;

	private final LeaseRenewer renewer;

	private final @Nullable LockListener listener;

	private final boolean interruptOnLoss;

	private final ThreadPoolExecutor cleanup;

	LeaseTable(LocalQueue queue, LeaseRenewer renewer, @Nullable LockListener listener, boolean interruptOnLoss) {
		this.queue = queue;
		this.renewer = renewer;
		this.listener = listener;
		this.interruptOnLoss = interruptOnLoss;
		for (int i = 0; i < STRIPES; i++) {
			this.active[i] = new Stripe();
		}
		this.cleanup = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				Timing.daemonThreads("distlock-cleanup-"));
		this.cleanup.allowCoreThreadTimeOut(true);
	}

	void add(ManagedLease<?> lease) {
		Stripe stripe = this.active[ThreadLocalRandom.current().nextInt() & (STRIPES - 1)];
		synchronized (stripe) {
			if (lease.tableStripe != null) {
				return;
			}
			ManagedLease<?> head = stripe.head;
			lease.tableNext = head;
			lease.tablePrev = null;
			if (head != null) {
				head.tablePrev = lease;
			}
			stripe.head = lease;
			lease.tableStripe = stripe;
		}
	}

	private static void remove(ManagedLease<?> lease) {
		Object stripe = lease.tableStripe;
		if (stripe == null) {
			return;
		}
		synchronized (stripe) {
			if (lease.tableStripe != stripe) {
				return;
			}
			ManagedLease<?> prev = lease.tablePrev;
			ManagedLease<?> next = lease.tableNext;
			if (prev != null) {
				prev.tableNext = next;
			}
			else {
				((Stripe) stripe).head = next;
			}
			if (next != null) {
				next.tablePrev = prev;
			}
			lease.tablePrev = null;
			lease.tableNext = null;
			lease.tableStripe = null;
		}
	}

	List<ManagedLease<?>> active() {
		List<ManagedLease<?>> result = new ArrayList<>();
		for (Stripe stripe : this.active) {
			synchronized (stripe) {
				for (ManagedLease<?> lease = stripe.head; lease != null; lease = lease.tableNext) {
					result.add(lease);
				}
			}
		}
		return result;
	}

	/** Runs clean-up work on the background thread; never throws. */
	void inBackground(Runnable task) {
		try {
			this.cleanup.execute(task);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not schedule clean-up " + task, ex);
		}
	}

	@Override
	public void ended(ManagedLease<?> lease) {
		remove(lease);
		LocalQueue.Slot slot = lease.takeSlot();
		if (lease.state() != ManagedLease.LOST) {
			this.queue.exit(slot, lease);
			this.renewer.unwatch(lease);
			return;
		}
		// a lost lease's lock is released on the backend too (owner-checked, in the
		// background): backends whose leases the holder enforces (ZooKeeper, etcd) would
		// keep it otherwise. Its place stays marked until then: a thread of this process
		// that takes the place meanwhile sends that release itself, or waits for it,
		// before it asks the backend, so it does not find the lock still held by the
		// lease that ended, however late the background thread runs
		LocalQueue.Slot marked = this.queue.markReleasing(slot, lease);
		this.queue.exit(slot, lease);
		this.renewer.unwatch(lease);
		inBackground(() -> {
			try {
				lease.releaseBackend();
			}
			finally {
				this.queue.released(marked, lease);
			}
		});
	}

	@Override
	public void released(ManagedLease<?> lease, long heldNanos) {
		LockListener events = this.listener;
		if (events != null) {
			events.released(lease, lease.provider().name(), heldNanos);
		}
	}

	@Override
	public void lost(ManagedLease<?> lease, String reason) {
		logger.warn("Lease of lock '" + lease.key() + "' (" + lease.type() + ", token " + lease.fencingToken()
				+ ") was lost: " + reason);
		LockListener events = this.listener;
		if (events != null) {
			events.lost(lease, lease.provider().name(), reason);
		}
	}

	@Override
	public void renewed(ManagedLease<?> lease) {
		LockListener events = this.listener;
		if (events != null) {
			events.renewed(lease, lease.provider().name());
		}
	}

	@Override
	public boolean interruptOnLoss() {
		return this.interruptOnLoss;
	}

	@Override
	public void watch(ManagedLease<?> lease) {
		this.renewer.watch(lease);
	}

	/**
	 * Tells every running holder its lease is lost, releases the held locks on the
	 * backends (in the background, waiting at most {@code timeout}), and stops the clock.
	 */
	void close(Duration timeout) {
		List<ManagedLease<?>> held = active();
		for (ManagedLease<?> lease : held) {
			lease.markLost("the application is shutting down");
		}
		for (ManagedLease<?> lease : held) {
			this.cleanup.execute(lease::forceRelease);
		}
		this.cleanup.shutdown();
		try {
			if (!this.cleanup.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("Releasing " + held.size() + " held locks at shutdown took longer than " + timeout
						+ "; the rest free themselves when their leases end");
				this.cleanup.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.renewer.close();
	}

	/** One lock of the table and the list of leases under it. */
	private static final class Stripe {

		@Nullable ManagedLease<?> head;

	}

}
