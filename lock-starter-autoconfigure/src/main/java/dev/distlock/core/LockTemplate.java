package dev.distlock.core;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import dev.distlock.core.callback.AsyncHold;
import dev.distlock.core.callback.BusyCallback;
import dev.distlock.core.callback.LockCallback;
import dev.distlock.core.internal.LockExecutor;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

/**
 * The entry point for locking in code ({@link LockOperations}):
 * {@link #execute(String, Callable)} runs a callback under a lock,
 * {@link #acquire(LockRequest)} and {@link #tryAcquire(LockRequest)} hand out a
 * {@link Lease} to release later, from any thread. On every backend: one holder per key
 * for MUTEX, FAIR and WRITE while leases are valid, READ shares with READ only, SEMAPHORE
 * admits {@code permits} holders; re-entry by the holding thread costs no round trip;
 * every acquisition carries a fencing token that strictly increases per lock.
 * <p>
 * Integrations and operators also find here the one execution path with callbacks
 * ({@link #execute(LockRequest, LockCallback, BusyCallback, AsyncHold)}), the providers,
 * the leases held now and a forced release. Thread-safe; one instance serves the whole
 * application. The guarantees in full, local queueing and the watchdog: docs/core.md.
 *
 * @since 0.1.0
 */
public class LockTemplate implements LockOperations, AutoCloseable {

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	private final LockSettings settings;

	private final LockExecutor executor;

	/**
	 * Creates a template over one provider with default settings.
	 * @param provider the backend
	 */
	public LockTemplate(LockProvider<?> provider) {
		this(List.of(provider), provider.name(), LockSettings.defaults(), List.of());
	}

	/**
	 * Creates a template.
	 * @param providers the backends, by distinct {@link LockProvider#name() names}
	 * @param defaultProvider the name of the one used when a request names none
	 * @param settings defaults and tuning
	 * @param listeners observers of every acquisition, release, renewal and loss
	 * @throws LockConfigurationException if there is no provider, names clash or the
	 * default is unknown
	 */
	public LockTemplate(Collection<? extends LockProvider<?>> providers, String defaultProvider, LockSettings settings,
			List<? extends LockListener> listeners) {
		this.settings = settings;
		this.executor = new LockExecutor(providers, defaultProvider, settings, listeners);
	}

	@Override
	@SuppressWarnings("NullAway")
	public <T> T execute(LockRequest request, Callable<T> action) {
		try {
			return this.executor.execute(request, (lease) -> action.call(), BusyCallback.throwing(), null);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new UndeclaredThrowableException(ex);
		}
	}

	/**
	 * The one execution path every integration uses (the annotation, reactive and
	 * asynchronous results, Kotlin, leader election): acquires the requested lock, runs
	 * {@code action} with the lease current in {@link LockContext}, and releases when it
	 * returns or throws, or, if {@code async} is given and the action returned a value,
	 * when {@code async} completes that value. A lease lost (or out of time) while the
	 * action ran raises {@link LockLostException} when it ends, added as suppressed to
	 * the action's own exception if it threw. When the lock stays busy for the whole
	 * wait, {@code busy} answers.
	 * @param <T> the result type
	 * @param request what to lock
	 * @param action the guarded work
	 * @param busy what to do when the lock stays busy ({@link BusyCallback#throwing()} to
	 * throw)
	 * @param async how to hold the lock until an asynchronous result completes, or
	 * {@code null}
	 * @return the action's result, the busy callback's, or the asynchronous hold's
	 * @throws Throwable what the action or the busy callback throws, unchanged;
	 * {@link LockAcquisitionException} if the backend failed; {@link LockLostException}
	 * as above
	 */
	public <T> @Nullable T execute(LockRequest request, LockCallback<T> action, BusyCallback<T> busy,
			@Nullable AsyncHold<T> async) throws Throwable {
		return this.executor.execute(request, action, busy, async);
	}

	@Override
	public Lease acquire(LockRequest request) {
		Lease lease = this.executor.acquire(request);
		if (lease == null) {
			throw this.executor.timedOut(request);
		}
		return lease;
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		return Optional.ofNullable(this.executor.acquire(request));
	}

	@Override
	public void checkNotLost(Lease lease) {
		LockLostException lost = this.executor.lossOf(lease);
		if (lost != null) {
			throw lost;
		}
	}

	/**
	 * Ends the calling thread's claim on a lease it acquired, without releasing it: the
	 * thread no longer re-enters the lock, so its next acquisition waits like any other.
	 * For leases handed to asynchronous work acquired with {@link #acquire};
	 * {@link #execute(LockRequest, LockCallback, BusyCallback, AsyncHold)} does it
	 * itself.
	 * @param lease a lease acquired by the calling thread
	 */
	public void detach(Lease lease) {
		this.executor.detach(lease);
	}

	/**
	 * The provider a request goes to.
	 * @param request the request
	 * @return its provider
	 * @throws LockConfigurationException if the request names an unknown provider
	 */
	public LockProvider<?> provider(LockRequest request) {
		return this.executor.provider(request.provider());
	}

	/**
	 * The provider with this name.
	 * @param name the provider's name
	 * @return the provider
	 * @throws LockConfigurationException if there is none of that name
	 */
	public LockProvider<?> provider(String name) {
		return this.executor.provider(name);
	}

	/**
	 * The providers by name.
	 * @return the providers
	 */
	public Map<String, LockProvider<?>> providers() {
		return this.executor.providers();
	}

	/**
	 * The provider used when a request names none.
	 * @return the default provider
	 */
	public LockProvider<?> defaultProvider() {
		return this.executor.provider(null);
	}

	/**
	 * The settings this template works with.
	 * @return the settings
	 */
	public LockSettings settings() {
		return this.settings;
	}

	/**
	 * The leases this template holds now.
	 * @return snapshots of the held leases
	 */
	public List<LeaseSnapshot> activeLeases() {
		return this.executor.activeLeases();
	}

	/**
	 * Releases a lease held by this process, found by its owner token, whoever holds it:
	 * an operator's last resort for a stuck local holder. The holder's work is not
	 * stopped; it sees its lease as lost.
	 * @param owner the owner token ({@link LeaseSnapshot#owner()})
	 * @return {@code true} if a lease was found and released
	 */
	public boolean forceRelease(String owner) {
		return this.executor.forceRelease(owner);
	}

	/**
	 * Shuts down: new acquisitions fail with {@link LockAcquisitionException}, running
	 * holders are told their lease is lost (their {@code execute} raises
	 * {@link LockLostException}), held locks are released on their backends (bounded by a
	 * shutdown timeout of 10 s; what is left frees itself when its lease ends), and the
	 * lease clock stops. Providers are closed by their owners.
	 */
	@Override
	public void close() {
		this.executor.close(SHUTDOWN_TIMEOUT);
	}

}
