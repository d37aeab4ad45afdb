package dev.distlock.bench;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import org.jspecify.annotations.Nullable;

/**
 * A provider that forwards to the application's and counts the renewal batches the lease
 * clock sends it (each one backend call): what the scaling benchmark reports as round
 * trips per period, read from outside the engine.
 */
final class RenewalCounter implements LockProvider<HeldLock> {

	private final LockProvider<HeldLock> delegate;

	private final AtomicLong batches = new AtomicLong();

	@SuppressWarnings("unchecked")
	RenewalCounter(LockProvider<?> delegate) {
		this.delegate = (LockProvider<HeldLock>) delegate;
	}

	long batches() {
		return this.batches.get();
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
	public Duration minimumLease() {
		return this.delegate.minimumLease();
	}

	@Override
	public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return this.delegate.acquire(attempt, waiter);
	}

	@Override
	public boolean renew(HeldLock lock, Duration lease) throws Exception {
		return this.delegate.renew(lock, lease);
	}

	@Override
	public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
		this.batches.incrementAndGet();
		return this.delegate.renewAll(locks, lease);
	}

	/**
	 * Forwards, so that a backend that renews on a thread of its own (JDBC) does so here
	 * too, and counts the batches it takes.
	 */
	@Override
	public boolean renewAllInBackground(List<HeldLock> locks, Duration lease, Consumer<RenewalOutcome[]> answer) {
		boolean taken = this.delegate.renewAllInBackground(locks, lease, answer);
		if (taken) {
			this.batches.incrementAndGet();
		}
		return taken;
	}

	@Override
	public void release(HeldLock lock) throws Exception {
		this.delegate.release(lock);
	}

	@Override
	public void release(HeldLock lock, Runnable sent) throws Exception {
		this.delegate.release(lock, sent);
	}

	@Override
	public void abandon(LockAttempt attempt) {
		this.delegate.abandon(attempt);
	}

	@Override
	public boolean expiresLeases() {
		return this.delegate.expiresLeases();
	}

}
