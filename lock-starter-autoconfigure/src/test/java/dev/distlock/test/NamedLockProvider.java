package dev.distlock.test;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import dev.distlock.core.Acquisition;
import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockProvider;
import dev.distlock.core.LockType;
import dev.distlock.core.LockWaiter;
import dev.distlock.core.ReleaseSubscription;

import org.jspecify.annotations.Nullable;

/**
 * A provider under another name, optionally with fewer lock types, delegating to a real one (usually a
 * {@code LocalLockProvider}): stands for a second backend in tests of provider selection and of types a backend lacks.
 */
public final class NamedLockProvider implements LockProvider {

	private final String name;

	private final LockProvider delegate;

	private final Set<LockType> types;

	public NamedLockProvider(String name, LockProvider delegate) {
		this(name, delegate, delegate.supportedTypes());
	}

	public NamedLockProvider(String name, LockProvider delegate, Set<LockType> types) {
		this.name = name;
		this.delegate = delegate;
		this.types = Set.copyOf(EnumSet.copyOf(types));
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public Set<LockType> supportedTypes() {
		return this.types;
	}

	@Override
	public Acquisition tryAcquire(LockAttempt attempt) throws Exception {
		return this.delegate.tryAcquire(attempt);
	}

	@Override
	public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return this.delegate.acquire(attempt, waiter);
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
