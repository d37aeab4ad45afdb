package dev.distlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.RenewalOutcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The lease clock shared by every lease of a {@code LockTemplate}: one daemon thread that
 * ticks while leases need it, sends the watchdog renewals that fall due together to each
 * backend as one batch ({@link LockProvider#renewAll(java.util.List, Duration)}), and
 * reports a watched lease lost when its time runs out. Fixed leases nobody listens to
 * never reach it: they are judged lazily by their own clock. Renewals run on a small pool
 * (one thread unless configured otherwise), never on the clock thread, so a backend call
 * that hangs delays no expiry; a renewal never blocks a release, and an answer that comes
 * after the lease ran out counts as lost.
 *
 * @since 0.1.0
 */
final class LeaseRenewer implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	/** Most leases renewed in one backend call. */
	static final int MAX_BATCH = 1000;

	private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final Set<ManagedLease<?>> watched = ConcurrentHashMap.newKeySet();

	private final ThreadPoolExecutor renewals;

	private final AtomicLong batches = new AtomicLong();

	private final Object startLock = new Object();

	private final long tickNanos;

	private final long intervalNanos;

	private volatile Thread clock;

	private volatile boolean sleepingLong;

	private volatile boolean closed;

	/**
	 * Creates a renewer; the clock ticks at a tenth of the watchdog interval, between 10
	 * and 100 ms.
	 * @param threads how many renewal batches may be in flight at once (the clock thread
	 * comes on top)
	 * @param watchdogInterval how often a watchdog lease is renewed
	 */
	LeaseRenewer(int threads, Duration watchdogInterval) {
		this.renewals = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				Timing.daemonThreads("distlock-renewer-"));
		this.renewals.allowCoreThreadTimeOut(true);
		this.intervalNanos = watchdogInterval.toNanos();
		long tick = this.intervalNanos / 10;
		this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10),
				Math.min(tick, TimeUnit.MILLISECONDS.toNanos(100)));
	}

	/**
	 * Starts watching a lease: renewing it (watchdog) and reporting its loss when its
	 * time runs out.
	 */
	void watch(ManagedLease<?> lease) {
		if (this.closed) {
			return;
		}
		this.watched.add(lease);
		Thread current = this.clock;
		if (current == null) {
			start();
		}
		else if (this.sleepingLong) {
			LockSupport.unpark(current);
		}
	}

	void unwatch(ManagedLease<?> lease) {
		if (lease.isWatched()) {
			this.watched.remove(lease);
		}
	}

	private void start() {
		synchronized (this.startLock) {
			if (this.clock == null && !this.closed) {
				Thread thread = Timing.daemonThreads("distlock-lease-clock").newThread(this::run);
				this.clock = thread;
				thread.start();
			}
		}
	}

	private void run() {
		long emptySince = System.nanoTime();
		while (!this.closed) {
			long now = System.nanoTime();
			if (this.watched.isEmpty()) {
				if (now - emptySince > IDLE_NANOS) {
					this.sleepingLong = true;
					if (this.watched.isEmpty()) {
						LockSupport.park(this);
					}
					this.sleepingLong = false;
					emptySince = System.nanoTime();
					continue;
				}
			}
			else {
				emptySince = now;
				tick(now);
			}
			LockSupport.parkNanos(this, this.tickNanos);
		}
	}

	private void tick(long now) {
		Map<RenewalGroup, List<ManagedLease<?>>> due = null;
		for (ManagedLease<?> lease : this.watched) {
			if (lease.endIfExpired(now)) {
				this.watched.remove(lease);
			}
			else if (lease.renewalDue(now, this.intervalNanos)) {
				if (due == null) {
					due = new HashMap<>();
				}
				RenewalGroup group = new RenewalGroup(lease.provider(), lease.startRenewal(now));
				due.computeIfAbsent(group, (g) -> new ArrayList<>()).add(lease);
			}
		}
		if (due != null) {
			due.forEach((group, leases) -> {
				for (int from = 0; from < leases.size(); from += MAX_BATCH) {
					List<ManagedLease<?>> batch = leases.subList(from, Math.min(leases.size(), from + MAX_BATCH));
					submit(group, List.copyOf(batch), now);
				}
			});
		}
	}

	private void submit(RenewalGroup group, List<ManagedLease<?>> batch, long sentNanos) {
		try {
			this.renewals.execute(() -> renew(group, batch, sentNanos));
		}
		catch (RuntimeException ex) {
			batch.forEach((lease) -> lease.renewalFailed(ex));
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private void renew(RenewalGroup group, List<ManagedLease<?>> batch, long sentNanos) {
		List held = new ArrayList<>(batch.size());
		batch.forEach((lease) -> held.add(lease.held()));
		this.batches.incrementAndGet();
		RenewalOutcome[] outcomes;
		try {
			outcomes = ((LockProvider) group.provider()).renewAll(held, group.lease());
		}
		catch (RuntimeException ex) {
			batch.forEach((lease) -> lease.renewalFailed(ex));
			return;
		}
		catch (Error ex) {
			logger.warn("Renewal of " + batch.size() + " leases on " + group.provider().name() + " failed", ex);
			batch.forEach((lease) -> lease.renewalFailed(new IllegalStateException(ex)));
			throw ex;
		}
		for (int i = 0; i < batch.size(); i++) {
			RenewalOutcome outcome = outcomes[i];
			Exception failure = outcome.failure();
			if (failure != null) {
				batch.get(i).renewalFailed(failure);
			}
			else {
				batch.get(i).renewalAnswered(outcome.isRenewed(), sentNanos, group.lease());
			}
		}
	}

	/**
	 * Number of leases the clock watches now (watchdog leases, and fixed leases someone
	 * listens to).
	 * @return the number of watched leases
	 */
	int watchedLeases() {
		return this.watched.size();
	}

	/**
	 * Number of renewal batches sent to backends so far (each one backend call).
	 * @return the number of batches
	 */
	long renewalBatches() {
		return this.batches.get();
	}

	/**
	 * Stops the clock and the renewals. Leases still held then end with their backend
	 * lease.
	 */
	@Override
	public void close() {
		this.closed = true;
		Thread current = this.clock;
		if (current != null) {
			LockSupport.unpark(current);
		}
		this.renewals.shutdownNow();
		this.watched.clear();
	}

	private record RenewalGroup(LockProvider<?> provider, Duration lease) {
	}

}
