package dev.distlock.core;

import java.time.Duration;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.LatchWaiter;

/**
 * A distributed countdown latch beside the locks: one process sets a count
 * ({@link #trySetCount}), any process counts it down ({@link #countDown}), and any
 * process waits for zero ({@link #await}). The count lives in the backend, so it survives
 * the crash of the processes that set it or count it down; waiters are woken by the
 * backend's notification where it has one (Redis pub/sub, PostgreSQL {@code NOTIFY}, a
 * ZooKeeper watch, Redisson's latch) and poll with capped backoff elsewhere.
 * <p>
 * Every latch expires {@code expiry} after it was set ({@code distlock.latch.expiry}
 * unless given), so abandoned latches do not pile up. A latch that does not exist,
 * because it was never set, reached zero or expired, has the count zero: waiting for it
 * returns at once, and it can be set again. Latch names share {@code distlock.key-prefix}
 * with the locks but never collide with a lock of the same name.
 * <p>
 * Thread-safe; one instance serves the whole application.
 *
 * @since 0.2.0
 */
public class LatchTemplate {

	private final LatchProvider provider;

	private final LockSettings settings;

	private final Duration defaultExpiry;

	/**
	 * Creates a template.
	 * @param provider the backend
	 * @param settings the key prefix and the waiters' backoff
	 * @param defaultExpiry the expiry of a latch set without one
	 * @throws LockConfigurationException if the expiry is not positive
	 */
	public LatchTemplate(LatchProvider provider, LockSettings settings, Duration defaultExpiry) {
		this.provider = provider;
		this.settings = settings;
		this.defaultExpiry = checkExpiry(defaultExpiry, "distlock.latch.expiry");
	}

	/**
	 * Sets the count of a latch that does not exist, with the default expiry.
	 * @param name the latch name
	 * @param count the count, at least one
	 * @return {@code true} if set, {@code false} if the latch exists (its count is
	 * unchanged)
	 * @throws LockConfigurationException if the name is blank or the count below one
	 * @throws DistributedLockException if the backend failed
	 */
	public boolean trySetCount(String name, long count) {
		return trySetCount(name, count, this.defaultExpiry);
	}

	/**
	 * Sets the count of a latch that does not exist; it expires after {@code expiry}
	 * whatever its count.
	 * @param name the latch name
	 * @param count the count, at least one
	 * @param expiry how long the latch lives at most, positive
	 * @return {@code true} if set, {@code false} if the latch exists (its count is
	 * unchanged)
	 * @throws LockConfigurationException if the name is blank, the count below one or the
	 * expiry not positive
	 * @throws DistributedLockException if the backend failed
	 */
	public boolean trySetCount(String name, long count, Duration expiry) {
		String latch = fullName(name);
		if (count < 1) {
			throw new LockConfigurationException("Count of latch '" + name + "' must be at least 1, was " + count);
		}
		checkExpiry(expiry, "Expiry of latch '" + name + "'");
		try {
			return this.provider.trySetCount(latch, count, expiry);
		}
		catch (Exception ex) {
			throw failed("set the count of", name, ex);
		}
	}

	/**
	 * Counts the latch down by one; at zero it is deleted and every waiter is woken. Does
	 * nothing if the latch does not exist.
	 * @param name the latch name
	 * @throws DistributedLockException if the backend failed
	 */
	public void countDown(String name) {
		String latch = fullName(name);
		try {
			this.provider.countDown(latch);
		}
		catch (Exception ex) {
			throw failed("count down", name, ex);
		}
	}

	/**
	 * The latch's current count.
	 * @param name the latch name
	 * @return the count, zero if the latch does not exist (never set, reached zero, or
	 * expired)
	 * @throws DistributedLockException if the backend failed
	 */
	public long count(String name) {
		String latch = fullName(name);
		try {
			return this.provider.count(latch);
		}
		catch (Exception ex) {
			throw failed("read the count of", name, ex);
		}
	}

	/**
	 * Waits until the latch's count is zero (at once if it does not exist), at most
	 * {@code timeout}.
	 * @param name the latch name
	 * @param timeout the longest wait, not negative; zero checks once
	 * @return {@code true} if the count is zero, {@code false} if the timeout passed
	 * first
	 * @throws InterruptedException if the thread was interrupted while waiting
	 * @throws DistributedLockException if the backend failed
	 */
	public boolean await(String name, Duration timeout) throws InterruptedException {
		String latch = fullName(name);
		if (timeout.isNegative()) {
			throw new LockConfigurationException("Wait for latch '" + name + "' must not be negative, was " + timeout);
		}
		LatchWaiter waiter = LatchWaiter.within(timeout, this.settings);
		try {
			return this.provider.await(latch, waiter);
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw failed("wait for", name, ex);
		}
	}

	/**
	 * The backend.
	 * @return the provider
	 */
	public LatchProvider provider() {
		return this.provider;
	}

	private String fullName(String name) {
		if (name == null || name.isBlank()) {
			throw new LockConfigurationException("Latch name must not be null or blank");
		}
		return this.settings.keyPrefix() + name;
	}

	private static Duration checkExpiry(Duration expiry, String what) {
		if (expiry == null || expiry.isNegative() || expiry.isZero()) {
			throw new LockConfigurationException(what + " must be positive, was " + expiry);
		}
		return expiry;
	}

	private DistributedLockException failed(String action, String name, Exception ex) {
		return new DistributedLockException(
				"Could not " + action + " latch '" + name + "' on " + this.provider.name() + ": " + ex.getMessage(),
				ex);
	}

}
