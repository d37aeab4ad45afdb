package dev.distlock.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.callback.AsyncHold;
import dev.distlock.core.callback.BusyCallback;
import dev.distlock.core.callback.LockCallback;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

/**
 * The engine behind {@code LockTemplate}, and its one execution path: acquire (one key
 * through {@link LockAcquirer}, several through {@link MultiKeyLocks}), run the work with
 * the lease current, judge the lease by its clock when the work ends, release, or hand
 * the hold to an asynchronous result. Internal: its signatures may change in any release;
 * use {@code LockTemplate}.
 */
public final class LockExecutor {

	private final ProviderRegistry providers;

	private final LockSettings settings;

	private final boolean interruptOnLoss;

	private final LocalQueue queue = new LocalQueue();

	private final ReentryHolds reentry = new ReentryHolds();

	private final LeaseRenewer renewer;

	private final LeaseTable leases;

	private final LockAcquirer single;

	private final MultiKeyLocks multiKey;

	/**
	 * Creates the engine.
	 * @param providers the backends, by distinct {@link LockProvider#name() names}
	 * @param defaultProvider the name of the one used when a request names none
	 * @param settings defaults and tuning
	 * @param listeners observers of every acquisition, release, renewal and loss
	 * @throws dev.distlock.core.LockConfigurationException if there is no provider, names
	 * clash or the default is unknown
	 */
	public LockExecutor(Collection<? extends LockProvider<?>> providers, String defaultProvider, LockSettings settings,
			List<? extends LockListener> listeners) {
		this.providers = new ProviderRegistry(providers, defaultProvider);
		this.settings = settings;
		this.interruptOnLoss = settings.onLeaseLost() == LockSettings.LeaseLostAction.INTERRUPT;
		LockListener listener = CompositeLockListener.of(listeners);
		this.renewer = new LeaseRenewer(settings.watchdogThreads(), settings.watchdogInterval());
		this.leases = new LeaseTable(this.queue, this.renewer, listener, this.interruptOnLoss);
		this.single = new LockAcquirer(this.providers, settings, this.renewer, this.leases, this.queue, this.reentry,
				listener);
		this.multiKey = new MultiKeyLocks(this.single);
	}

	/**
	 * Runs the work under the requested lock: see
	 * {@code LockTemplate.execute(LockRequest, LockCallback, BusyCallback, AsyncHold)}.
	 * @param <T> the result type
	 * @param request what to lock
	 * @param action the guarded work
	 * @param busy what to do when the lock stays busy
	 * @param async how to hold the lock until an asynchronous result completes, or
	 * {@code null}
	 * @return the result
	 * @throws Throwable what the action or the busy callback throws
	 */
	public <T> @Nullable T execute(LockRequest request, LockCallback<T> action, BusyCallback<T> busy,
			@Nullable AsyncHold<T> async) throws Throwable {
		EngineLease lease = acquireLease(request);
		if (lease == null) {
			return busy.whenBusy(timedOut(request));
		}
		// only the outermost hold sets and clears the worker: a nested one runs inside
		// it, on the same thread
		ManagedLease<?> worked = (this.interruptOnLoss && lease instanceof ManagedLease<?> managed) ? managed : null;
		if (worked != null) {
			worked.worker(Thread.currentThread());
		}
		LockContext.push(lease);
		T result;
		try {
			result = action.doWithLock(lease);
		}
		catch (Throwable ex) {
			endWork(lease, worked);
			LockLostException lost = lease.lossAtEnd();
			if (lost != null && lost != ex) {
				ex.addSuppressed(lost);
			}
			lease.release();
			throw ex;
		}
		endWork(lease, worked);
		if (async != null && result != null) {
			if (lease.isOuterHold()) {
				// the calling thread is done with the lock; a second call from it must
				// wait, not re-enter
				detach(lease);
			}
			return async.hold(result, lease, completion(lease));
		}
		LockLostException lost = lease.lossAtEnd();
		lease.release();
		if (lost != null) {
			throw lost;
		}
		return result;
	}

	private static void endWork(Lease lease, @Nullable ManagedLease<?> worked) {
		LockContext.pop(lease);
		if (worked != null) {
			worked.worker(null);
			if (worked.wasLost()) {
				// the interrupt was meant for the guarded work only; do not leak it to
				// the caller
				Thread.interrupted();
			}
		}
	}

	private static AsyncHold.Completion completion(EngineLease lease) {
		AtomicBoolean done = new AtomicBoolean();
		return (failure) -> {
			if (!done.compareAndSet(false, true)) {
				return failure;
			}
			LockLostException lost = lease.lossAtEnd();
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

	/**
	 * Acquires the requested lock within its wait.
	 * @param request what to lock
	 * @return the lease, or {@code null} if the wait ran out
	 * @throws LockAcquisitionException if the backend failed, the thread was interrupted
	 * or the engine is closed
	 */
	public @Nullable Lease acquire(LockRequest request) {
		return acquireLease(request);
	}

	private @Nullable EngineLease acquireLease(LockRequest request) {
		return request.isMultiKey() ? this.multiKey.acquire(request, this.single.waitOf(request))
				: this.single.acquire(request);
	}

	/**
	 * The exception of a request that stayed busy for its whole wait.
	 * @param request the request
	 * @return the exception
	 */
	public LockAcquisitionException timedOut(LockRequest request) {
		return new LockAcquisitionException("Could not acquire " + request.type() + " lock '" + request.key() + "' on "
				+ this.providers.get(request.provider()).name() + " within " + this.single.waitOf(request));
	}

	/**
	 * The loss of a lease this engine handed out, judged by its clock now.
	 * @param lease the lease
	 * @return the exception to raise, or {@code null} if the lease is still held
	 */
	public @Nullable LockLostException lossOf(Lease lease) {
		return (lease instanceof EngineLease engineLease) ? engineLease.lossAtEnd() : null;
	}

	/**
	 * Ends the calling thread's claim on a lease without releasing it.
	 * @param lease a lease the calling thread acquired
	 */
	public void detach(Lease lease) {
		if (lease instanceof EngineLease engineLease) {
			engineLease.forEachHeld(this.reentry::remove);
		}
	}

	/**
	 * The provider with this name, or the default one for {@code null}.
	 * @param name the provider's name, or {@code null}
	 * @return the provider
	 * @throws dev.distlock.core.LockConfigurationException if there is none of that name
	 */
	public LockProvider<?> provider(@Nullable String name) {
		return this.providers.get(name);
	}

	/**
	 * The providers by name.
	 * @return the providers
	 */
	public Map<String, LockProvider<?>> providers() {
		return this.providers.byName();
	}

	/**
	 * Snapshots of the leases held now.
	 * @return the snapshots
	 */
	public List<LeaseSnapshot> activeLeases() {
		List<LeaseSnapshot> result = new ArrayList<>();
		for (ManagedLease<?> lease : this.leases.active()) {
			Instant acquiredAt = Instant.now().minusNanos(System.nanoTime() - lease.acquiredNanos());
			result.add(new LeaseSnapshot(lease.key(), lease.name(), lease.type(), lease.provider().name(),
					lease.fencingToken(), owner(lease), lease.ownerThread().getName(), acquiredAt, lease.expiresAt(),
					lease.renewals(), lease.isWatchdog(), lease.isValid(), lease.lostReason()));
		}
		return result;
	}

	/**
	 * A lease's owner token, built without making its attempt keep it: a backend that
	 * never compares the token (local, ZooKeeper) leaves it unbuilt, and a look at the
	 * leases must not add a string to every one of them.
	 */
	private static String owner(ManagedLease<?> lease) {
		return lease.attempt().appendOwner(new StringBuilder()).toString();
	}

	/**
	 * Releases the held lease of this owner token whatever its holds; its holder sees it
	 * as lost.
	 * @param owner the owner token
	 * @return {@code true} if a lease was found and released
	 */
	public boolean forceRelease(String owner) {
		for (ManagedLease<?> lease : this.leases.active()) {
			if (owner(lease).equals(owner)) {
				lease.markLost("released by an operator");
				lease.forceRelease();
				return true;
			}
		}
		return false;
	}

	/**
	 * Shuts down: new acquisitions fail, running holders are told their lease is lost,
	 * held locks are released on their backends (waiting at most {@code timeout}), and
	 * the lease clock stops.
	 * @param timeout the longest wait for the releases
	 */
	public void close(Duration timeout) {
		this.single.close();
		this.leases.close(timeout);
	}

	LocalQueue queue() {
		return this.queue;
	}

	LeaseRenewer renewer() {
		return this.renewer;
	}

}
