package dev.distlock.test;

import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import org.jspecify.annotations.Nullable;

/**
 * Wraps a provider and counts what the core asks of it: acquisitions, releases, and how
 * many acquisitions were in flight at once. Proves re-entry costs no backend call and
 * that local threads queue before the backend. Every other SPI call is forwarded
 * unchanged.
 */
public final class CountingLockProvider extends DelegatingLockProvider {

	public final AtomicInteger acquires = new AtomicInteger();

	public final AtomicInteger releases = new AtomicInteger();

	public final AtomicInteger inFlight = new AtomicInteger();

	public final AtomicInteger maxInFlight = new AtomicInteger();

	public CountingLockProvider(LockProvider<?> delegate) {
		super(delegate);
	}

	@Override
	public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		this.acquires.incrementAndGet();
		int now = this.inFlight.incrementAndGet();
		this.maxInFlight.accumulateAndGet(now, Math::max);
		try {
			return super.acquire(attempt, waiter);
		}
		finally {
			this.inFlight.decrementAndGet();
		}
	}

	@Override
	public void release(HeldLock lock) throws Exception {
		this.releases.incrementAndGet();
		super.release(lock);
	}

}
