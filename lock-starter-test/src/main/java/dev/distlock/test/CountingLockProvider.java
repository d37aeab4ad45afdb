package dev.distlock.test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.core.spi.TryOnceLockProvider;
import org.jspecify.annotations.Nullable;

/**
 * Wraps a provider and counts what the core asks of it: acquisitions, releases, and how many acquisitions were in
 * flight at once. Proves re-entry costs no backend call and that local threads queue before the backend. Every other
 * SPI call is forwarded unchanged.
 */
public final class CountingLockProvider implements TryOnceLockProvider<HeldLock> {

	public final AtomicInteger acquires = new AtomicInteger();

	public final AtomicInteger releases = new AtomicInteger();

	public final AtomicInteger inFlight = new AtomicInteger();

	public final AtomicInteger maxInFlight = new AtomicInteger();

	private final LockProvider<HeldLock> delegate;

	@SuppressWarnings("unchecked")
	public CountingLockProvider(LockProvider<?> delegate) {
		this.delegate = (LockProvider<HeldLock>) delegate;
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
	public void release(HeldLock lock) throws Exception {
		this.releases.incrementAndGet();
		this.delegate.release(lock);
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
	public AttemptOutcome<HeldLock> tryAcquire(LockAttempt attempt) throws Exception {
		if (this.delegate instanceof TryOnceLockProvider<HeldLock> thin) {
			return thin.tryAcquire(attempt);
		}
		HeldLock lock = this.delegate.acquire(attempt, LockWaiter.tryOnce());
		return (lock != null) ? AttemptOutcome.acquired(lock) : AttemptOutcome.busy();
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
		return (this.delegate instanceof TryOnceLockProvider<HeldLock> thin) ? thin.subscribe(attempt, listener)
				: ReleaseSubscription.NONE;
	}

	@Override
	public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
		return this.delegate.renewAll(locks, lease);
	}

	@Override
	public boolean renew(HeldLock lock, Duration lease) throws Exception {
		return this.delegate.renew(lock, lease);
	}

	@Override
	public void abandon(LockAttempt attempt) {
		this.delegate.abandon(attempt);
	}

	@Override
	public void checkHealth(LockAttempt probe) throws Exception {
		this.delegate.checkHealth(probe);
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
