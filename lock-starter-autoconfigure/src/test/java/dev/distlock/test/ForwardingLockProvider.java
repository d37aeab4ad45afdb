package dev.distlock.test;

import java.time.Duration;
import java.util.Set;

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
 * A provider that forwards every call to a real one; test fixtures extend it and override
 * only what they observe or change, so that none of them forgets to forward an SPI
 * method.
 */
public abstract class ForwardingLockProvider implements TryOnceLockProvider<HeldLock> {

	private final LockProvider<HeldLock> delegate;

	@SuppressWarnings("unchecked")
	protected ForwardingLockProvider(LockProvider<?> delegate) {
		this.delegate = (LockProvider<HeldLock>) delegate;
	}

	protected LockProvider<HeldLock> delegate() {
		return this.delegate;
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
	public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return this.delegate.acquire(attempt, waiter);
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) throws Exception {
		return (this.delegate instanceof TryOnceLockProvider<HeldLock> thin) ? thin.subscribe(attempt, listener)
				: ReleaseSubscription.NONE;
	}

	@Override
	public RenewalOutcome[] renewAll(java.util.List<HeldLock> locks, Duration lease) {
		return this.delegate.renewAll(locks, lease);
	}

	@Override
	public boolean renew(HeldLock lock, Duration lease) throws Exception {
		return this.delegate.renew(lock, lease);
	}

	@Override
	public void release(HeldLock lock) throws Exception {
		this.delegate.release(lock);
	}

	@Override
	public boolean expiresLeases() {
		return this.delegate.expiresLeases();
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
