package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one execution path: acquire (re-entry, local queue, backend), run the work with the lease current, judge the
 * lease by its clock when the work ends, release, or hand the hold to an asynchronous result. The template, the
 * aspect and the asynchronous and reactive handlers all come through
 * {@link #execute(LockRequest, LockCallback, BusyCallback, AsyncHold)}. The leases it makes report to a
 * {@link LeaseTable}.
 */
final class LockExecutor {

	private static final Log logger = LogFactory.getLog(LockExecutor.class);

	private final ProviderRegistry providers;

	private final LockSettings settings;

	private final LeaseRenewer renewer;

	private final @Nullable LockListener listener;

	private final boolean interruptOnLoss;

	private final LocalQueue queue = new LocalQueue();

	private final ReentryHolds reentry = new ReentryHolds();

	private final LeaseTable leases;

	private final String ownerPrefix = UUID.randomUUID() + ":";

	private final AtomicLong ownerSequence = new AtomicLong();

	private volatile boolean closed;

	LockExecutor(ProviderRegistry providers, LockSettings settings, LeaseRenewer renewer,
			List<? extends LockListener> listeners) {
		this.providers = providers;
		this.settings = settings;
		this.renewer = renewer;
		this.listener = CompositeLockListener.of(listeners);
		this.interruptOnLoss = settings.onLeaseLost() == LockSettings.LeaseLostAction.INTERRUPT;
		renewer.configure(settings.watchdogInterval());
		this.leases = new LeaseTable(this.queue, renewer, this.listener, this.interruptOnLoss);
	}

	<T> @Nullable T execute(LockRequest request, LockCallback<T> action, BusyCallback<T> busy,
			@Nullable AsyncHold<T> async) throws Throwable {
		Lease lease = acquire(request);
		if (lease == null) {
			return busy.whenBusy(timedOut(request));
		}
		ManagedLease<?> managed = ManagedLease.unwrap(lease);
		// only the outermost hold sets and clears the worker: a nested one runs inside it, on the same thread
		boolean interruptible = this.interruptOnLoss && managed != null && lease == managed;
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
			else if (lease instanceof MultiKeyLease) {
				detach(lease);
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
			if (managed.wasLost()) {
				// the interrupt was meant for the guarded work only; do not leak it to the caller
				Thread.interrupted();
			}
		}
	}

	static @Nullable LockLostException lossOf(Lease lease) {
		if (lease instanceof MultiKeyLease multi) {
			return multi.lossAtEnd();
		}
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
		if (request.isMultiKey()) {
			return MultiKeyLocks.acquire(this, request, waitOf(request));
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
		String prefix = this.settings.keyPrefix();
		LockAttempt attempt = new LockAttempt(prefix.isEmpty() ? request.key() : prefix + request.key(), type,
				request.permits(), HoldAtLeast.backendLease(request, fixed, this.settings.watchdogLease()),
				this.ownerPrefix, this.ownerSequence.incrementAndGet(),
				deadline + LockWaiter.saturatedNanos(this.settings.callTimeout()));
		ManagedLease<H> lease = new ManagedLease<>(this.leases, provider, attempt, request, fixed == null);
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
		if (lease.isOutOfTime(System.nanoTime())) {
			// the reply came after the lease it set had run out (counted from the request): another process may hold
			// the lock by now, so the work must not run; the lease ends lost and its lock is released in the background
			lease.markLost("it was granted after its lease of " + lease.renewLease() + " had run out");
			failed(request, provider, start, null);
			throw new LockAcquisitionException("Lock '" + request.key() + "' on " + provider.name()
					+ " was granted after its lease of " + lease.renewLease() + " had run out (a slow reply); "
					+ "nothing ran under it");
		}
		if (queued && !type.isExclusive()) {
			this.queue.exit(lease);
		}
		this.leases.add(lease);
		if (type.isReentrant()) {
			this.reentry.add(lease);
		}
		if (lease.isWatchdog() || !provider.expiresLeases()) {
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
		// a maybe-held attempt is cleaned up in the background: the caller never waits for it
		this.leases.inBackground(() -> abandon(provider, attempt));
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
		else if (lease instanceof MultiKeyLease multi) {
			multi.parts().forEach(this::detach);
		}
	}

	LocalQueue queue() {
		return this.queue;
	}

	List<ManagedLease<?>> active() {
		return this.leases.active();
	}

	void close(Duration timeout) {
		this.closed = true;
		this.leases.close(timeout);
	}

}
