package dev.distlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.core.support.SharedTimer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The lease clock shared by every lease of a {@code LockTemplate}: a task on distlock's
 * one timer thread ({@link SharedTimer}) that sends the watchdog renewals falling due
 * together to each backend as one batch, and reports a watched lease lost when its time
 * runs out. It never waits for a backend: a backend that renews in the background
 * ({@link LockProvider#renewAllInBackground}) answers on a thread of its own, any other
 * is called ({@link LockProvider#renewAll(java.util.List, Duration)}) on a small pool of
 * renewal threads, so a hung call delays no expiry and never blocks a release.
 * <p>
 * The clock looks at a lease only when its next renewal or its end falls due: a schedule
 * of ticks kept by the clock's task alone, each lease linked into one tick's list, other
 * threads handing it work through a queue. An idle tick costs the same for ten or a
 * hundred thousand held leases.
 *
 * @since 0.1.0
 */
final class LeaseRenewer implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	/** Most leases renewed in one backend call. */
	static final int MAX_BATCH = 1000;

	private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The shortest time an idle renewal thread waits for work before it ends. */
	static final Duration MIN_RENEWAL_THREAD_KEEP_ALIVE = Duration.ofSeconds(10);

	/** Leases to (re)schedule, handed over by other threads. */
	private final Queue<ManagedLease<?>> incoming = new ConcurrentLinkedQueue<>();

	/** Tick number to the leases the clock looks at then (the clock's task only). */
	private final TreeMap<Long, Slot> schedule = new TreeMap<>();

	private final ThreadPoolExecutor renewals;

	private final AtomicLong batches = new AtomicLong();

	private final Object startLock = new Object();

	private final long origin = System.nanoTime();

	private final long tickNanos;

	private final long intervalNanos;

	private volatile int scheduled;

	/** The clock's task on the shared timer while it ticks (guarded by startLock). */
	private volatile @Nullable ScheduledFuture<?> ticking;

	/** Since when nothing has been watched (the clock's task only). */
	private long emptySince;

	private volatile boolean closed;

	/**
	 * How long an idle renewal thread waits for the next batch before it ends: at least
	 * {@link #MIN_RENEWAL_THREAD_KEEP_ALIVE}, and two watchdog intervals, so that while
	 * leases are held the thread outlives the gap between their renewals instead of being
	 * made anew every period (with the default 10 s interval and a 10 s keep-alive it
	 * was).
	 * @param watchdogInterval how often a watchdog lease is renewed
	 * @return the keep-alive
	 */
	static Duration renewalThreadKeepAlive(Duration watchdogInterval) {
		Duration twoIntervals = watchdogInterval.multipliedBy(2);
		return (twoIntervals.compareTo(MIN_RENEWAL_THREAD_KEEP_ALIVE) > 0) ? twoIntervals
				: MIN_RENEWAL_THREAD_KEEP_ALIVE;
	}

	/**
	 * Creates a renewer; the clock ticks at a tenth of the watchdog interval, between 10
	 * and 100 ms.
	 * @param threads how many renewal batches may be in flight at once on the core's
	 * renewal threads (backends that renew in the background use their own)
	 * @param watchdogInterval how often a watchdog lease is renewed
	 */
	LeaseRenewer(int threads, Duration watchdogInterval) {
		this.renewals = new ThreadPoolExecutor(threads, threads, renewalThreadKeepAlive(watchdogInterval).toNanos(),
				TimeUnit.NANOSECONDS, new LinkedBlockingQueue<>(), Timing.daemonThreads("distlock-renewer-"));
		this.renewals.allowCoreThreadTimeOut(true);
		this.intervalNanos = watchdogInterval.toNanos();
		long tick = this.intervalNanos / 10;
		this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10),
				Math.min(tick, TimeUnit.MILLISECONDS.toNanos(100)));
	}

	/**
	 * Starts watching a lease, or looks at it again after its end moved (an extension):
	 * renewing it (watchdog) and reporting its loss when its time runs out.
	 */
	void watch(ManagedLease<?> lease) {
		if (this.closed) {
			return;
		}
		this.incoming.add(lease);
		if (this.ticking == null) {
			start();
		}
	}

	/** Stops watching a lease that ended; the clock lets go of it at its next tick. */
	void unwatch(ManagedLease<?> lease) {
		if (lease.isWatched() && !this.closed) {
			this.incoming.add(lease);
		}
	}

	private void start() {
		synchronized (this.startLock) {
			if (this.ticking == null && !this.closed) {
				this.emptySince = System.nanoTime();
				this.ticking = SharedTimer.scheduleWithFixedDelay(this::run, 0, this.tickNanos, TimeUnit.NANOSECONDS);
			}
		}
	}

	/** One tick of the clock, on the shared timer. */
	private void run() {
		if (this.closed) {
			return;
		}
		long now = System.nanoTime();
		if (this.scheduled == 0 && this.incoming.isEmpty()) {
			if (now - this.emptySince > IDLE_NANOS) {
				stopIfIdle();
			}
			return;
		}
		this.emptySince = now;
		tick(now);
	}

	/**
	 * Stops ticking while nothing is watched; {@link #watch} starts it again. The task is
	 * marked stopped before the queue is looked at, and a watcher adds before it looks at
	 * the task, so one of the two always sees the other.
	 */
	private void stopIfIdle() {
		synchronized (this.startLock) {
			ScheduledFuture<?> current = this.ticking;
			this.ticking = null;
			if (!this.incoming.isEmpty() && !this.closed) {
				this.ticking = current;
				return;
			}
			cancel(current);
		}
	}

	private static void cancel(@Nullable ScheduledFuture<?> ticking) {
		if (ticking != null) {
			ticking.cancel(false);
		}
	}

	private void tick(long now) {
		long tick = Math.floorDiv(now - this.origin, this.tickNanos);
		for (ManagedLease<?> lease = this.incoming.poll(); lease != null; lease = this.incoming.poll()) {
			unlink(lease);
			if (!lease.endIfExpired(now)) {
				link(lease, tick);
			}
		}
		Map<RenewalGroup, List<ManagedLease<?>>> due = null;
		while (!this.schedule.isEmpty() && this.schedule.firstKey() <= tick) {
			Slot slot = this.schedule.pollFirstEntry().getValue();
			ManagedLease<?> lease = slot.head;
			while (lease != null) {
				ManagedLease<?> next = lease.clockNext;
				lease.clockSlot = null;
				lease.clockPrev = null;
				lease.clockNext = null;
				this.scheduled--;
				if (!lease.endIfExpired(now)) {
					if (lease.renewalDue(now, this.intervalNanos)) {
						if (due == null) {
							due = new HashMap<>();
						}
						RenewalGroup group = new RenewalGroup(lease.provider(), lease.startRenewal(now));
						due.computeIfAbsent(group, (g) -> new ArrayList<>()).add(lease);
					}
					link(lease, tick);
				}
				lease = next;
			}
		}
		if (due != null) {
			due.forEach((group, leases) -> {
				for (int from = 0; from < leases.size(); from += MAX_BATCH) {
					List<ManagedLease<?>> batch = leases.subList(from, Math.min(leases.size(), from + MAX_BATCH));
					// a view: the tick's lists are not touched once grouped
					submit(group, batch, now);
				}
			});
		}
	}

	/**
	 * Schedules a lease for its next renewal or its end, whichever is first, and after
	 * this tick.
	 */
	private void link(ManagedLease<?> lease, long currentTick) {
		long at = Math.max(currentTick + 1,
				-Math.floorDiv(-(lease.nextLookNanos(this.intervalNanos) - this.origin), this.tickNanos));
		Slot slot = this.schedule.computeIfAbsent(at, Slot::new);
		ManagedLease<?> head = slot.head;
		lease.clockNext = head;
		if (head != null) {
			head.clockPrev = lease;
		}
		slot.head = lease;
		lease.clockSlot = slot;
		this.scheduled++;
	}

	private void unlink(ManagedLease<?> lease) {
		Object current = lease.clockSlot;
		if (!(current instanceof Slot slot)) {
			return;
		}
		ManagedLease<?> prev = lease.clockPrev;
		ManagedLease<?> next = lease.clockNext;
		if (prev != null) {
			prev.clockNext = next;
		}
		else {
			slot.head = next;
		}
		if (next != null) {
			next.clockPrev = prev;
		}
		lease.clockSlot = null;
		lease.clockPrev = null;
		lease.clockNext = null;
		this.scheduled--;
		if (slot.head == null) {
			this.schedule.remove(slot.tick, slot);
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private void submit(RenewalGroup group, List<ManagedLease<?>> batch, long sentNanos) {
		List held = new ArrayList<>(batch.size());
		batch.forEach((lease) -> held.add(lease.held()));
		LockProvider provider = group.provider();
		try {
			// a backend that renews on a thread of its own answers later
			if (provider.renewAllInBackground(held, group.lease(),
					(outcomes) -> answer(batch, group.lease(), sentNanos, (RenewalOutcome[]) outcomes))) {
				this.batches.incrementAndGet();
				return;
			}
			this.renewals.execute(() -> renew(provider, held, batch, group.lease(), sentNanos));
		}
		catch (RuntimeException ex) {
			batch.forEach((lease) -> lease.renewalFailed(ex));
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private void renew(LockProvider provider, List held, List<ManagedLease<?>> batch, Duration lease, long sentNanos) {
		this.batches.incrementAndGet();
		RenewalOutcome[] outcomes;
		try {
			outcomes = provider.renewAll(held, lease);
		}
		catch (RuntimeException ex) {
			batch.forEach((each) -> each.renewalFailed(ex));
			return;
		}
		catch (Error ex) {
			logger.warn("Renewal of " + batch.size() + " leases on " + provider.name() + " failed", ex);
			batch.forEach((each) -> each.renewalFailed(new IllegalStateException(ex)));
			throw ex;
		}
		answer(batch, lease, sentNanos, outcomes);
	}

	/** Hands a batch's outcomes to its leases. */
	private static void answer(List<ManagedLease<?>> batch, Duration lease, long sentNanos, RenewalOutcome[] outcomes) {
		// one clock reading for the batch's answers, not one per lease
		long answeredNanos = System.nanoTime();
		for (int i = 0; i < batch.size(); i++) {
			RenewalOutcome outcome = outcomes[i];
			Exception failure = outcome.failure();
			if (failure != null) {
				batch.get(i).renewalFailed(failure);
			}
			else {
				batch.get(i).renewalAnswered(outcome.isRenewed(), sentNanos, lease, answeredNanos);
			}
		}
	}

	/**
	 * Number of leases the clock watches now (watchdog leases, and fixed leases someone
	 * listens to).
	 * @return the number of watched leases
	 */
	int watchedLeases() {
		return this.scheduled;
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
		synchronized (this.startLock) {
			cancel(this.ticking);
			this.ticking = null;
		}
		this.renewals.shutdownNow();
		this.incoming.clear();
	}

	private record RenewalGroup(LockProvider<?> provider, Duration lease) {
	}

	/** The leases the clock looks at in one tick, linked through the leases. */
	private static final class Slot {

		private final long tick;

		private @Nullable ManagedLease<?> head;

		Slot(long tick) {
			this.tick = tick;
		}

	}

}
