package dev.distlock.test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Acquisition;
import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockProvider;
import dev.distlock.core.LockType;
import dev.distlock.core.LockWaiter;
import dev.distlock.core.ReleaseSubscription;

import org.jspecify.annotations.Nullable;

/**
 * Wraps a provider and counts what the core asks of it: acquisitions, releases, and how many acquisitions were in
 * flight at once. Proves re-entry costs no backend call and that local threads queue before the backend.
 */
public final class CountingLockProvider implements LockProvider {

	private final LockProvider delegate;

	public final AtomicInteger acquires = new AtomicInteger();

	public final AtomicInteger releases = new AtomicInteger();

	public final AtomicInteger inFlight = new AtomicInteger();

	public final AtomicInteger maxInFlight = new AtomicInteger();

	public CountingLockProvider(LockProvider delegate) {
		this.delegate = delegate;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public Set<LockType> supportedTypes() {
		return this.delegate.supportedTypes();
	}

	@Override
	public Acquisition tryAcquire(LockAttempt attempt) throws Exception {
		return this.delegate.tryAcquire(attempt);
	}

	@Override
	public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		this.acquires.incrementAndGet();
		int now = this.inFlight.incrementAndGet();
		this.maxInFlight.accumulateAndGet(now, Math::max);
		try {
			return this.delegate.acquire(attempt, waiter);
		}
		finally {
			this.inFlight.decrementAndGet();
		}
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
		return this.delegate.subscribe(attempt, listener);
	}

	@Override
	public boolean renew(HeldLock lock, Duration lease) throws Exception {
		return this.delegate.renew(lock, lease);
	}

	@Override
	public void release(HeldLock lock) throws Exception {
		this.releases.incrementAndGet();
		this.delegate.release(lock);
	}

	@Override
	public void abandon(LockAttempt attempt) {
		this.delegate.abandon(attempt);
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
