package dev.distlock.core;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The entry point for locking in code: {@link #execute(String, Callable)} runs a callback under a lock,
 * {@link #acquire(LockRequest)} and {@link #tryAcquire(LockRequest)} hand out a {@link Lease} to release later,
 * from any thread.
 * <p>
 * Semantics, on every backend: one holder per key for MUTEX, FAIR and WRITE while leases are valid; READ shares with
 * READ only; SEMAPHORE admits {@code permits} holders. The thread holding a MUTEX, FAIR, READ or WRITE lock
 * re-acquires it without a backend round trip and the lock is released when the outermost hold ends. Threads of this
 * JVM that contend for one key queue locally in arrival order, so only one of them at a time talks to the backend.
 * A request without a lease is held until released: the watchdog renews a short backend lease
 * ({@code distlock.watchdog.lease}) so a crashed process frees the key within that lease. Every acquisition carries
 * a fencing token that strictly increases per lock.
 * <p>
 * Thread-safe; one instance serves the whole application.
 *
 * @since 0.1.0
 */
public class LockTemplate implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockTemplate.class);

	private final Map<String, LockProvider> providers;

	private final LockProvider defaultProvider;

	private final LockSettings settings;

	private final LeaseRenewer renewer;

	private final List<LockListener> listeners;

	private final LocalGates gates = new LocalGates();

	private final Map<ReentryKey, ManagedLease> reentrant = new ConcurrentHashMap<>();

	private final Set<ManagedLease> active = ConcurrentHashMap.newKeySet();

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong ownerSequence = new AtomicLong();

	/**
	 * Creates a template over one provider with default settings and its own renewer.
	 * @param provider the backend
	 */
	public LockTemplate(LockProvider provider) {
		this(List.of(provider), provider.name(), LockSettings.defaults(), new LeaseRenewer(), List.of());
	}

	/**
	 * Creates a template.
	 * @param providers the backends, by distinct {@link LockProvider#name() names}
	 * @param defaultProvider the name of the one used when a request names none
	 * @param settings defaults and tuning
	 * @param renewer the lease renewer (closed with this template)
	 * @param listeners observers of every acquisition, release, renewal and loss
	 * @throws LockConfigurationException if there is no provider, names clash or the default is unknown
	 */
	public LockTemplate(Collection<? extends LockProvider> providers, String defaultProvider, LockSettings settings,
			LeaseRenewer renewer, List<? extends LockListener> listeners) {
		Map<String, LockProvider> byName = new LinkedHashMap<>();
		for (LockProvider provider : providers) {
			LockProvider clash = byName.put(provider.name(), provider);
			if (clash != null) {
				throw new LockConfigurationException("Two lock providers are named '" + provider.name() + "': "
						+ clash.getClass().getName() + " and " + provider.getClass().getName());
			}
		}
		if (byName.isEmpty()) {
			throw new LockConfigurationException("No lock provider is configured");
		}
		LockProvider chosen = byName.get(defaultProvider);
		if (chosen == null) {
			throw unknownProvider(defaultProvider, byName.keySet());
		}
		this.providers = Map.copyOf(byName);
		this.defaultProvider = chosen;
		this.settings = settings;
		this.renewer = renewer;
		this.listeners = List.copyOf(listeners);
	}

	static LockConfigurationException unknownProvider(String name, Collection<String> available) {
		return new LockConfigurationException("Unknown lock provider '" + name + "'; available: " + available
				+ ". Set distlock.provider (or the annotation's provider) to one of them, or add the backend's "
				+ "client library and connection settings");
	}

	/**
	 * Runs the action under a MUTEX on the key, with the configured defaults for lease and wait.
	 * @param <T> the result type
	 * @param key the lock key
	 * @param action the guarded action
	 * @return the action's result
	 * @throws LockAcquisitionException if the lock could not be acquired within the default wait
	 * @throws LockLostException if the lease was lost while the action ran (after the action completed)
	 */
	public <T> T execute(String key, Callable<T> action) {
		return execute(LockRequest.of(key), action);
	}

	/**
	 * Runs the action under the requested lock and releases it afterwards, also when the action throws. Inside the
	 * action {@link LockContext#currentLease()} is the lease. Runtime exceptions and errors from the action propagate
	 * unchanged; a checked exception is wrapped in an {@link UndeclaredThrowableException}.
	 * @param <T> the result type
	 * @param request what to lock
	 * @param action the guarded action
	 * @return the action's result
	 * @throws LockAcquisitionException if the lock could not be acquired within the wait time
	 * @throws LockLostException if the lease was lost while the action ran (after the action completed)
	 */
	public <T> T execute(LockRequest request, Callable<T> action) {
		Lease lease = acquire(request);
		try {
			T result = runHolding(lease, action);
			checkNotLost(lease);
			return result;
		}
		finally {
			lease.release();
		}
	}

	/**
	 * Runs the action under a MUTEX on the key; see {@link #execute(LockRequest, Callable)}.
	 * @param key the lock key
	 * @param action the guarded action
	 */
	public void run(String key, Runnable action) {
		execute(LockRequest.of(key), () -> {
			action.run();
			return null;
		});
	}

	/**
	 * Runs the action under the requested lock; see {@link #execute(LockRequest, Callable)}.
	 * @param request what to lock
	 * @param action the guarded action
	 */
	public void run(LockRequest request, Runnable action) {
		execute(request, () -> {
			action.run();
			return null;
		});
	}

	/**
	 * Runs an action with the lease current in {@link LockContext} and the running thread registered for
	 * interruption under {@code distlock.on-lease-lost=interrupt}. For integrations (the aspect) that acquire and
	 * release themselves.
	 * @param <T> the result type
	 * @param lease the held lease
	 * @param action the guarded action
	 * @return the result
	 */
	public <T> T runHolding(Lease lease, Callable<T> action) {
		ManagedLease managed = ManagedLease.unwrap(lease);
		Thread current = Thread.currentThread();
		if (managed != null) {
			managed.worker(current);
		}
		LockContext.push(lease);
		try {
			return action.call();
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new UndeclaredThrowableException(ex);
		}
		finally {
			LockContext.pop(lease);
			if (managed != null) {
				managed.worker(null);
				if (managed.isLost() && settings().onLeaseLost() == LockSettings.LeaseLostAction.INTERRUPT) {
					// the interrupt was meant for the guarded work only; do not leak it to the caller
					Thread.interrupted();
				}
			}
		}
	}

	/**
	 * Throws if the lease was lost while held.
	 * @param lease the lease
	 * @throws LockLostException if the lease was lost
	 */
	public void checkNotLost(Lease lease) {
		ManagedLease managed = ManagedLease.unwrap(lease);
		if (managed != null && managed.isLost()) {
			throw new LockLostException("Lease of lock '" + lease.key() + "' (" + lease.type() + ", token "
					+ lease.fencingToken() + ") was lost while held: " + managed.lostReason()
					+ "; another holder may have run at the same time");
		}
	}

	/**
	 * Acquires the requested lock, waiting up to its wait time.
	 * @param request what to lock
	 * @return the lease; release it (or close it) when done
	 * @throws LockAcquisitionException if the wait time ran out or the backend failed
	 * @throws LockConfigurationException if the provider is unknown or lacks the type
	 */
	public Lease acquire(LockRequest request) {
		Lease lease = doAcquire(request);
		if (lease == null) {
			throw new LockAcquisitionException("Could not acquire " + request.type() + " lock '" + request.key()
					+ "' on " + provider(request).name() + " within " + waitOf(request));
		}
		return lease;
	}

	/**
	 * Acquires the requested lock if it can be had within the request's wait time.
	 * @param request what to lock
	 * @return the lease, or empty if the wait time ran out
	 * @throws LockAcquisitionException if the backend failed or the thread was interrupted
	 * @throws LockConfigurationException if the provider is unknown or lacks the type
	 */
	public Optional<Lease> tryAcquire(LockRequest request) {
		return Optional.ofNullable(doAcquire(request));
	}

	private @Nullable Lease doAcquire(LockRequest request) {
		LockProvider provider = provider(request);
		LockType type = request.type();
		if (!provider.supportedTypes().contains(type)) {
			throw new LockConfigurationException("Lock provider '" + provider.name() + "' does not support " + type
					+ " locks (lock '" + request.key() + "'); it supports " + provider.supportedTypes());
		}
		String fullKey = this.settings.keyPrefix() + request.key();
		ReentryKey reentryKey = null;
		if (type.isReentrant()) {
			reentryKey = new ReentryKey(Thread.currentThread(), provider.name(), fullKey, type);
			ManagedLease held = this.reentrant.get(reentryKey);
			if (held != null) {
				if (held.isLost()) {
					throw new LockLostException("Lease of lock '" + request.key() + "' held by this thread was lost ("
							+ held.lostReason() + "); release it before acquiring the lock again");
				}
				Lease nested = held.reenter();
				if (nested != null) {
					return nested;
				}
			}
		}
		Duration wait = waitOf(request);
		LockWaiter waiter = new LockWaiter(wait, this.settings);
		long start = System.nanoTime();
		LocalGates.Gate gate = null;
		boolean gated = type.isExclusive() || !waiter.isTryOnce();
		try {
			if (gated) {
				gate = this.gates.enter(provider.name(), fullKey, type, waiter.deadlineNanos(), waiter.isTryOnce());
				if (gate == null) {
					fireAcquireFailed(request, provider, start, null);
					return null;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			fireAcquireFailed(request, provider, start, ex);
			throw new LockAcquisitionException("Interrupted while waiting for lock '" + request.key() + "'", ex);
		}
		boolean watchdog = leaseOf(request) == null;
		Duration backendLease = watchdog ? this.settings.watchdogLease() : leaseOf(request);
		LockAttempt attempt = new LockAttempt(fullKey, type, request.permits(), backendLease, nextOwner());
		HeldLock held;
		long sent = System.nanoTime();
		try {
			held = provider.acquire(attempt, waiter);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			abandon(provider, attempt, gate);
			fireAcquireFailed(request, provider, start, ex);
			throw new LockAcquisitionException("Interrupted while waiting for lock '" + request.key() + "'", ex);
		}
		catch (Exception ex) {
			abandon(provider, attempt, gate);
			fireAcquireFailed(request, provider, start, ex);
			throw new LockAcquisitionException("Could not acquire " + type + " lock '" + request.key() + "' on "
					+ provider.name() + ": " + ex.getMessage(), ex);
		}
		if (held == null) {
			abandon(provider, attempt, gate);
			fireAcquireFailed(request, provider, start, null);
			return null;
		}
		LocalGates.Gate heldGate = null;
		if (gate != null) {
			if (type.isExclusive()) {
				heldGate = gate;
			}
			else {
				gate.exit();
			}
		}
		ReentryKey registered = reentryKey;
		LocalGates.Gate releaseGate = heldGate;
		ManagedLease[] self = new ManagedLease[1];
		Runnable cleanup = () -> {
			if (registered != null) {
				this.reentrant.remove(registered, self[0]);
			}
			this.active.remove(self[0]);
			if (releaseGate != null) {
				releaseGate.exit();
			}
		};
		// the backend's lease began with the request that granted it, not with the wait before it
		long leaseStart = waiter.leaseStartNanos(sent);
		ManagedLease lease = new ManagedLease(this, provider, attempt, held, request.key(), watchdog, leaseStart,
				cleanup);
		self[0] = lease;
		this.active.add(lease);
		if (registered != null) {
			this.reentrant.put(registered, lease);
		}
		lease.start(this.renewer, this.settings.watchdogInterval());
		long waited = System.nanoTime() - start;
		for (LockListener listener : this.listeners) {
			try {
				listener.acquired(lease, provider.name(), waited);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
		return lease;
	}

	private void abandon(LockProvider provider, LockAttempt attempt, LocalGates.@Nullable Gate gate) {
		try {
			provider.abandon(attempt);
		}
		catch (RuntimeException ex) {
			logger.debug("Abandoning " + attempt + " failed", ex);
		}
		finally {
			if (gate != null) {
				gate.exit();
			}
		}
	}

	private String nextOwner() {
		return this.instanceId + ":" + this.ownerSequence.incrementAndGet();
	}

	private @Nullable Duration leaseOf(LockRequest request) {
		return (request.lease() != null) ? request.lease() : this.settings.defaultLease();
	}

	private Duration waitOf(LockRequest request) {
		return (request.waitTime() != null) ? request.waitTime() : this.settings.defaultWait();
	}

	/**
	 * The provider a request goes to.
	 * @param request the request
	 * @return its provider
	 * @throws LockConfigurationException if the request names an unknown provider
	 */
	public LockProvider provider(LockRequest request) {
		String name = request.provider();
		if (name == null) {
			return this.defaultProvider;
		}
		LockProvider provider = this.providers.get(name);
		if (provider == null) {
			throw unknownProvider(name, this.providers.keySet());
		}
		return provider;
	}

	/**
	 * The provider with this name.
	 * @param name the provider's name
	 * @return the provider
	 * @throws LockConfigurationException if there is none of that name
	 */
	public LockProvider provider(String name) {
		LockProvider provider = this.providers.get(name);
		if (provider == null) {
			throw unknownProvider(name, this.providers.keySet());
		}
		return provider;
	}

	/**
	 * The providers by name.
	 * @return the providers
	 */
	public Map<String, LockProvider> providers() {
		return this.providers;
	}

	/**
	 * The provider used when a request names none.
	 * @return the default provider
	 */
	public LockProvider defaultProvider() {
		return this.defaultProvider;
	}

	public LockSettings settings() {
		return this.settings;
	}

	/**
	 * The leases this template holds now.
	 * @return snapshots of the held leases
	 */
	public List<LeaseInfo> activeLeases() {
		List<LeaseInfo> result = new ArrayList<>();
		for (ManagedLease lease : this.active) {
			result.add(LeaseInfo.of(lease));
		}
		return result;
	}

	/**
	 * Releases a lease held by this process, found by its owner token, whoever holds it: an operator's last resort
	 * for a stuck local holder. The holder's work is not stopped; it sees its lease as released.
	 * @param owner the owner token ({@link LeaseInfo#owner()})
	 * @return {@code true} if a lease was found and released
	 */
	public boolean forceRelease(String owner) {
		for (ManagedLease lease : this.active) {
			if (lease.attempt().owner().equals(owner)) {
				lease.markLost("released by an operator");
				lease.forceRelease();
				return true;
			}
		}
		return false;
	}

	LeaseRenewer renewer() {
		return this.renewer;
	}

	void fireRenewed(ManagedLease lease) {
		for (LockListener listener : this.listeners) {
			try {
				listener.renewed(lease, lease.providerName());
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
	}

	void fireLost(ManagedLease lease, String reason) {
		for (LockListener listener : this.listeners) {
			try {
				listener.lost(lease, lease.providerName(), reason);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
	}

	void fireReleased(ManagedLease lease, long heldNanos) {
		for (LockListener listener : this.listeners) {
			try {
				listener.released(lease, lease.providerName(), heldNanos);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
	}

	private void fireAcquireFailed(LockRequest request, LockProvider provider, long start,
			@Nullable Throwable error) {
		long waited = System.nanoTime() - start;
		for (LockListener listener : this.listeners) {
			try {
				listener.acquireFailed(request, provider.name(), waited, error);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
	}

	/**
	 * Stops the renewer. Leases still held end with their backend lease; providers are closed by their owners.
	 */
	@Override
	public void close() {
		this.renewer.close();
	}

	private record ReentryKey(Thread thread, String provider, String key, LockType type) {
	}

}
