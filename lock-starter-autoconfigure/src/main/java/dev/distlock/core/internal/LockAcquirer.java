package dev.distlock.core.internal;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One key's acquisition: re-entry by the holding thread, the local queue, the backend's
 * grant within the wait, and a lease on the clock. What it hands out reports to the
 * {@link LeaseTable}; what is built on top (several keys, running work under a lease)
 * calls it and is never called back.
 */
final class LockAcquirer {

	private static final Log logger = LogFactory.getLog(LockAcquirer.class);

	private final ProviderRegistry providers;

	private final LockSettings settings;

	private final LeaseRenewer renewer;

	private final LeaseTable leases;

	private final LocalQueue queue;

	private final ReentryHolds reentry;

	private final @Nullable LockListener listener;

	private final String ownerPrefix = UUID.randomUUID() + ":";

	private final AtomicLong ownerSequence = new AtomicLong();

	private volatile boolean closed;

	LockAcquirer(ProviderRegistry providers, LockSettings settings, LeaseRenewer renewer, LeaseTable leases,
			LocalQueue queue, ReentryHolds reentry, @Nullable LockListener listener) {
		this.providers = providers;
		this.settings = settings;
		this.renewer = renewer;
		this.leases = leases;
		this.queue = queue;
		this.reentry = reentry;
		this.listener = listener;
	}

	/**
	 * Acquires one key within the request's wait.
	 * @param request a single-key request
	 * @return the lease (a nested one when the calling thread re-enters), or {@code null}
	 * if the wait ran out
	 * @throws LockAcquisitionException if the backend failed, the thread was interrupted,
	 * or the engine is closed
	 */
	@Nullable EngineLease acquire(LockRequest request) {
		if (this.closed) {
			throw closedBefore(request);
		}
		return acquire(this.providers.forRequest(request), request);
	}

	private <H extends HeldLock> @Nullable EngineLease acquire(LockProvider<H> provider, LockRequest request) {
		LockType type = request.type();
		if (type.isReentrant()) {
			ManagedLease<?> held = this.reentry.find(provider, request.key(), type);
			if (held != null) {
				// only a lease still valid by its clock is re-entered; one that ended
				// (lost, ran out, forgotten)
				// gives way to a new acquisition, which takes its local place over
				if (held.isValid() && held.addHold()) {
					return new NestedLease(held);
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
		long deadline = start + Timing.saturatedNanos(wait);
		Duration fixed = (request.lease() != null) ? request.lease() : this.settings.defaultLease();
		String prefix = this.settings.keyPrefix();
		ManagedLease<H> lease = new ManagedLease<>(this.leases, provider, request,
				(prefix.isEmpty() ? request.key() : prefix + request.key()),
				HoldAtLeast.backendLease(request, fixed, this.settings.watchdogLease()), this.ownerPrefix,
				this.ownerSequence.incrementAndGet(), deadline + Timing.saturatedNanos(this.settings.callTimeout()),
				this.settings.callTimeout(), fixed == null);
		LockAttempt attempt = lease.attempt();
		boolean queued = type.isExclusive() || !tryOnce;
		H held;
		try {
			if (queued && !enterQueue(lease, request, deadline, tryOnce)) {
				failed(request, provider, start, null);
				return null;
			}
			held = provider.acquire(attempt, LockWaiter.until(deadline, tryOnce, this.settings));
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
			// a definite "not in time": leave any queue place now, so the caller's next
			// attempt finds it gone
			this.queue.exit(lease.takeSlot(), lease);
			abandon(provider, attempt);
			failed(request, provider, start, null);
			return null;
		}
		long answered = System.nanoTime();
		lease.granted(held, attempt.sentNanos(answered), answered);
		if (lease.isOutOfTime(answered)) {
			// the reply came after the lease it set had run out (counted from the
			// request): another process may hold
			// the lock by now, so the work must not run; the lease ends lost and its lock
			// is released in the background
			lease.markLost("it was granted after its lease of " + lease.renewLease() + " had run out");
			failed(request, provider, start, null);
			throw new LockAcquisitionException(
					"Lock '" + request.key() + "' on " + provider.name() + " was granted after its lease of "
							+ lease.renewLease() + " had run out (a slow reply); " + "nothing ran under it");
		}
		if (queued && !type.isExclusive()) {
			this.queue.exit(lease.takeSlot(), lease);
		}
		this.leases.add(lease);
		if (type.isReentrant()) {
			this.reentry.add(lease);
		}
		if (lease.isWatchdog() || !provider.expiresLeases()) {
			lease.watchedFromStart();
			this.renewer.watch(lease);
		}
		lease.published();
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

	/**
	 * Takes the local place; a holder found out of time there is ended (and released)
	 * before the backend is asked.
	 */
	private boolean enterQueue(ManagedLease<?> lease, LockRequest request, long deadline, boolean tryOnce)
			throws InterruptedException {
		LocalQueue.Slot slot = this.queue.enter(lease, request.key(), request.type(), deadline, tryOnce);
		if (slot == null) {
			return false;
		}
		lease.slot(slot);
		LocalQueue.Holder displaced = slot.takeDisplaced();
		if (displaced instanceof ManagedLease<?> previous) {
			previous.endIfExpiredAndRelease(System.nanoTime());
		}
		// a lost lease of this process whose lock the background is still releasing
		LocalQueue.Holder releasing = slot.releasing();
		if (releasing != null && releasing != lease) {
			releasing.releaseBackendOrAwait();
		}
		return true;
	}

	/**
	 * An attempt failed with an unknown outcome: the lock may be held, and cleaning up
	 * may hang as well.
	 */
	private void giveUp(LockProvider<?> provider, ManagedLease<?> lease, LockRequest request, long start,
			Throwable error) {
		this.queue.exit(lease.takeSlot(), lease);
		LockAttempt attempt = lease.attempt();
		// a maybe-held attempt is cleaned up in the background: the caller never waits
		// for it
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

	LockAcquisitionException closedBefore(LockRequest request) {
		return new LockAcquisitionException("Could not acquire lock '" + request.key()
				+ "': the lock template is closed (the application is shutting down)");
	}

	void close() {
		this.closed = true;
	}

}
