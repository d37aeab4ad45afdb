package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one execution path: acquire (re-entry, local queue, backend), run the work with the lease current, judge the
 * lease by its clock when the work ends, release, or hand the hold to an asynchronous result. The template, the
 * aspect and the asynchronous and reactive handlers all come through
 * {@link #execute(LockRequest, LockCallback, BusyCallback, AsyncHold)}. It is also the {@link LeaseHost} of the
 * leases it makes: their end frees the local queue and the active table, their events reach the listeners.
 */
final class LockExecutor implements LeaseHost {

	private static final Log logger = LogFactory.getLog(LockExecutor.class);

	private final ProviderRegistry providers;

	private final LockSettings settings;

	private final LeaseRenewer renewer;

	private final @Nullable LockListener listener;

	private final boolean interruptOnLoss;

	private final LocalQueue queue = new LocalQueue();

	private final ReentryHolds reentry = new ReentryHolds();

	private final Set<ManagedLease<?>> active = ConcurrentHashMap.newKeySet();

	private final String ownerPrefix = UUID.randomUUID() + ":";

	private final AtomicLong ownerSequence = new AtomicLong();

	private final ThreadPoolExecutor cleanup;

	private volatile boolean closed;

	LockExecutor(ProviderRegistry providers, LockSettings settings, LeaseRenewer renewer,
			List<? extends LockListener> listeners) {
		this.providers = providers;
		this.settings = settings;
		this.renewer = renewer;
		this.listener = CompositeLockListener.of(listeners);
		this.interruptOnLoss = settings.onLeaseLost() == LockSettings.LeaseLostAction.INTERRUPT;
		renewer.configure(settings.watchdogInterval());
		this.cleanup = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (runnable) -> {
			Thread thread = new Thread(runnable, "distlock-cleanup");
			thread.setDaemon(true);
			return thread;
		});
		this.cleanup.allowCoreThreadTimeOut(true);
	}

	<T> @Nullable T execute(LockRequest request, LockCallback<T> action, BusyCallback<T> busy,
			@Nullable AsyncHold<T> async) throws Throwable {
		Lease lease = acquire(request);
		if (lease == null) {
			return busy.whenBusy(timedOut(request));
		}
		ManagedLease<?> managed = ManagedLease.unwrap(lease);
		boolean interruptible = this.interruptOnLoss && managed != null;
		if (interruptible) {
			managed.worker(Thread.currentThread());
		}
		LockContext.push(lease);
		T result;
		try {
			result = action.doWithLock(lease);
		}
		catch (Throwable ex) {
			endWork(lease, managed, interruptible);
			LockLostException lost = lossOf(lease);
			if (lost != null && lost != ex) {
				ex.addSuppressed(lost);
			}
			lease.release();
			throw ex;
		}
		endWork(lease, managed, interruptible);
		if (async != null && result != null) {
			if (lease == managed) {
				// the calling thread is done with the lock; a second call from it must wait, not re-enter
				this.reentry.remove(managed);
			}
			return async.hold(result, lease, completion(lease));
		}
		LockLostException lost = lossOf(lease);
		lease.release();
		if (lost != null) {
			throw lost;
		}
		return result;
	}

	private static void endWork(Lease lease, @Nullable ManagedLease<?> managed, boolean interruptible) {
		LockContext.pop(lease);
		if (interruptible) {
			managed.worker(null);
			if (managed.isLost()) {
				// the interrupt was meant for the guarded work only; do not leak it to the caller
				Thread.interrupted();
			}
		}
	}

	static @Nullable LockLostException lossOf(Lease lease) {
		ManagedLease<?> managed = ManagedLease.unwrap(lease);
		return (managed != null) ? managed.lossAtEnd() : null;
	}

	private static AsyncHold.Completion completion(Lease lease) {
		AtomicBoolean done = new AtomicBoolean();
		return (failure) -> {
			if (!done.compareAndSet(false, true)) {
				return failure;
			}
			LockLostException lost = lossOf(lease);
			lease.release();
			if (failure != null) {
				if (lost != null) {
					failure.addSuppressed(lost);
				}
				return failure;
			}
			return lost;
		};
	}

	LockAcquisitionException timedOut(LockRequest request) {
		return new LockAcquisitionException("Could not acquire " + request.type() + " lock '" + request.key()
				+ "' on " + this.providers.get(request.provider()).name() + " within " + waitOf(request));
	}

	@Nullable Lease acquire(LockRequest request) {
		if (this.closed) {
			throw new LockAcquisitionException("Could not acquire lock '" + request.key()
					+ "': the lock template is closed (the application is shutting down)");
		}
		return acquire(this.providers.forRequest(request), request);
	}

	private <H extends HeldLock> @Nullable Lease acquire(LockProvider<H> provider, LockRequest request) {
		LockType type = request.type();
		if (type.isReentrant()) {
			ManagedLease<?> held = this.reentry.find(provider, request.key(), type);
			if (held != null) {
				// only a lease still valid by its clock is re-entered; one that ended (lost, ran out, forgotten)
				// gives way to a new acquisition, which takes its local place over
				Lease nested = held.isValid() ? held.reenter() : null;
				if (nested != null) {
					return nested;
				}
				this.reentry.remove(held);
			}
		}
		LockListener events = this.listener;
		if (events != null) {
			events.acquiring(request, provider.name());
		}
		long start = System.nanoTime();
		Duration wait = waitOf(request);
		boolean tryOnce = wait.isZero();
		long deadline = start + LockWaiter.saturatedNanos(wait);
		Duration fixed = (request.lease() != null) ? request.lease() : this.settings.defaultLease();
		LockAttempt attempt = new LockAttempt(this.settings.keyPrefix() + request.key(), type, request.permits(),
				(fixed != null) ? fixed : this.settings.watchdogLease(), this.ownerPrefix,
				this.ownerSequence.incrementAndGet());
		ManagedLease<H> lease = new ManagedLease<>(this, provider, attempt, request, fixed == null);
		boolean queued = type.isExclusive() || !tryOnce;
		H held;
		try {
			if (queued && !this.queue.enter(lease, deadline, tryOnce)) {
				failed(request, provider, start, null);
				return null;
			}
			held = provider.acquire(attempt, new LockWaiter(deadline, tryOnce, this.settings));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			giveUp(provider, lease, request, start, ex);
			throw new LockAcquisitionException("Interrupted while waiting for lock '" + request.key() + "'", ex);
		}
		catch (Exception ex) {
			giveUp(provider, lease, request, start, ex);
			throw new LockAcquisitionException("Could not acquire " + type + " lock '" + request.key() + "' on "
					+ provider.name() + ": " + ex.getMessage(), ex);
		}
		if (held == null) {
			// a definite "not in time": leave any queue place now, so the caller's next attempt finds it gone
			this.queue.exit(lease);
			abandon(provider, attempt);
			failed(request, provider, start, null);
			return null;
		}
		lease.granted(held, attempt.sentNanos(System.nanoTime()));
		if (queued && !type.isExclusive()) {
			this.queue.exit(lease);
		}
		this.active.add(lease);
		if (type.isReentrant()) {
			this.reentry.add(lease);
		}
		if (lease.isWatchdog()) {
			this.renewer.watch(lease);
		}
		attempt.bind(lease);
		if (this.closed) {
			lease.markLost("the lock template closed while it was acquired");
			lease.release();
			throw new LockAcquisitionException("Could not acquire lock '" + request.key()
					+ "': the lock template closed (the application is shutting down)");
		}
		if (events != null) {
			events.acquired(lease, provider.name(), System.nanoTime() - start);
		}
		return lease;
	}

	/** An attempt failed with an unknown outcome: the lock may be held, and cleaning up may hang as well. */
	private void giveUp(LockProvider<?> provider, ManagedLease<?> lease, LockRequest request, long start,
			Throwable error) {
		this.queue.exit(lease);
		LockAttempt attempt = lease.attempt();
		try {
			// a maybe-held attempt is cleaned up in the background: the caller never waits for it
			this.cleanup.execute(() -> abandon(provider, attempt));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not schedule the clean-up of " + attempt, ex);
		}
		failed(request, provider, start, error);
	}

	private static void abandon(LockProvider<?> provider, LockAttempt attempt) {
		try {
			provider.abandon(attempt);
		}
		catch (RuntimeException ex) {
			logger.debug("Abandoning " + attempt + " failed", ex);
		}
	}

	private void failed(LockRequest request, LockProvider<?> provider, long start, @Nullable Throwable error) {
		LockListener events = this.listener;
		if (events != null) {
			events.acquireFailed(request, provider.name(), System.nanoTime() - start, error);
		}
	}

	Duration waitOf(LockRequest request) {
		return (request.waitTime() != null) ? request.waitTime() : this.settings.defaultWait();
	}

	/** Ends the calling thread's claim on a lease without releasing it (see {@link LockTemplate#detach}). */
	void detach(Lease lease) {
		if (lease instanceof ManagedLease<?> managed) {
			this.reentry.remove(managed);
		}
	}

	List<ManagedLease<?>> active() {
		return new ArrayList<>(this.active);
	}

	// ---------------------------------------------------------------- LeaseHost

	@Override
	public void ended(ManagedLease<?> lease) {
		this.active.remove(lease);
		this.queue.exit(lease);
		this.renewer.unwatch(lease);
		if (lease.state() == ManagedLease.LOST) {
			// a lost lease's lock is released on the backend too (owner-checked, in the background): backends whose
			// leases the holder enforces (ZooKeeper) would keep it otherwise
			try {
				this.cleanup.execute(lease::releaseBackend);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not schedule the release of lost " + lease, ex);
			}
		}
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
	public LeaseRenewer renewer() {
		return this.renewer;
	}

	/**
	 * Refuses new acquisitions, tells every running holder its lease is lost, releases the held locks on the backends
	 * (in the background, waiting at most {@code timeout}), and stops the clock.
	 */
	void close(Duration timeout) {
		this.closed = true;
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

}
