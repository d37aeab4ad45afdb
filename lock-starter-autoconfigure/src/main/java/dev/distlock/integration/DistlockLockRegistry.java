package dev.distlock.integration;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@link RenewableLockRegistry} on distlock, so aggregators,
 * {@code LockRegistryLeaderInitiator} and {@code executeLocked} run on any distlock
 * backend in place of {@code RedisLockRegistry} or {@code JdbcLockRegistry}. Each key's
 * lock is a {@link LeaseLock} (a MUTEX on {@code String.valueOf(key)}, with
 * {@code distlock.key-prefix}) that is also a {@link DistributedLock}: re-entrant for its
 * thread, renewed by the watchdog unless a time to live is given, queued locally against
 * the other threads of this process, and carrying the fencing token of its hold
 * ({@link LeaseLock#lease()}). As in Spring Integration's own registries, an
 * {@code unlock()} by a thread that does not hold the lock throws
 * {@link IllegalStateException} and changes nothing, and the {@code unlock()} that ends a
 * hold whose lease was lost (a time to live ran out, a renewal failed) throws
 * {@link ConcurrentModificationException}.
 * <p>
 * {@link #obtain(Object)} returns the same lock for a key while it is held or referenced;
 * other locks are dropped by the garbage collector, so a registry of many short-lived
 * keys (aggregator groups) does not grow without bound.
 *
 * @since 0.3.0
 */
public class DistlockLockRegistry implements RenewableLockRegistry<DistributedLock> {

	private final LockTemplate template;

	private final @Nullable String provider;

	/**
	 * Each key's lock while anything references it; a held lock is referenced by
	 * {@link #held}.
	 */
	private final Map<String, LockReference> locks = new ConcurrentHashMap<>();

	private final ReferenceQueue<RegistryLock> collected = new ReferenceQueue<>();

	/**
	 * The locks held now, each with its number of holding threads (more than one only
	 * while a lost hold has not yet been ended by its thread), so that a caller may drop
	 * its reference and obtain the same lock again to unlock or renew it.
	 */
	private final Map<RegistryLock, Integer> held = new ConcurrentHashMap<>();

	/**
	 * Creates a registry on the template's default backend.
	 * @param template the lock template
	 */
	public DistlockLockRegistry(LockTemplate template) {
		this(template, null);
	}

	/**
	 * Creates a registry on one of the template's backends.
	 * @param template the lock template
	 * @param provider the backend's name ({@code distlock.provider}), or {@code null} for
	 * the default
	 */
	public DistlockLockRegistry(LockTemplate template, @Nullable String provider) {
		this.template = template;
		this.provider = provider;
	}

	/**
	 * The lock of a key.
	 * @param lockKey the key; its {@code String.valueOf} is the distlock key
	 * @return the key's lock, which is a {@link LeaseLock}
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		for (Reference<? extends RegistryLock> gone; (gone = this.collected.poll()) != null;) {
			LockReference reference = (LockReference) gone;
			this.locks.remove(reference.key, reference);
		}
		String key = String.valueOf(lockKey);
		RegistryLock[] obtained = new RegistryLock[1];
		this.locks.compute(key, (name, reference) -> {
			RegistryLock lock = (reference != null) ? reference.get() : null;
			if (lock != null) {
				obtained[0] = lock;
				return reference;
			}
			obtained[0] = new RegistryLock(this.template, LockRequest.builder(name).provider(this.provider).build(),
					this.held);
			return new LockReference(name, obtained[0], this.collected);
		});
		return obtained[0];
	}

	/**
	 * Extends the calling thread's lease of the key by the lease it was acquired with:
	 * its time to live, else {@code distlock.default-lease}, else under the watchdog the
	 * watchdog's lease ({@code distlock.watchdog.lease}).
	 * @param lockKey the key
	 * @throws IllegalStateException if the calling thread does not hold the key's lock
	 * @throws dev.distlock.core.LockLostException if the lease was lost
	 */
	@Override
	public void renewLock(Object lockKey) {
		RegistryLock lock = (RegistryLock) obtain(lockKey);
		Lease lease = heldLease(lock);
		Duration fixed = lock.fixedLease();
		if (fixed == null) {
			fixed = this.template.settings().defaultLease();
		}
		lease.extend((fixed != null) ? fixed : this.template.settings().watchdogLease());
	}

	/**
	 * Extends the calling thread's lease of the key to {@code timeToLive} from now.
	 * @param lockKey the key
	 * @param timeToLive the new lease from now, positive
	 * @throws IllegalStateException if the calling thread does not hold the key's lock
	 * @throws dev.distlock.core.LockLostException if the lease was lost
	 */
	@Override
	public void renewLock(Object lockKey, Duration timeToLive) {
		heldLease((RegistryLock) obtain(lockKey)).extend(timeToLive);
	}

	private static Lease heldLease(RegistryLock lock) {
		return lock.lease()
			.orElseThrow(() -> new IllegalStateException(
					"Lock '" + lock.key() + "' is not held by the current thread: only its holder can renew it"));
	}

	@Override
	public String toString() {
		return "DistlockLockRegistry[provider=" + ((this.provider != null) ? this.provider : "default") + "]";
	}

	/** A key's entry in the registry, cleared once nothing references its lock. */
	private static final class LockReference extends WeakReference<RegistryLock> {

		private final String key;

		LockReference(String key, RegistryLock lock, ReferenceQueue<RegistryLock> queue) {
			super(lock, queue);
			this.key = key;
		}

	}

	/**
	 * A key's lock: a {@link LeaseLock} with Spring Integration's time-to-live methods
	 * and exceptions. It is in the registry's held set from the start of a thread's
	 * outermost hold until {@link #holdEnded()} on that thread.
	 */
	private static final class RegistryLock extends LeaseLock implements DistributedLock {

		private static final String EXPIRED = "Lock was released in the store due to expiration. "
				+ "The integrity of data protected by this lock may have been compromised.";

		private final Map<RegistryLock, Integer> held;

		/** The threads holding this lock, each with its hold's fixed lease. */
		private final Map<Thread, Hold> holders = new ConcurrentHashMap<>();

		RegistryLock(LockTemplate template, LockRequest request, Map<RegistryLock, Integer> held) {
			super(template, request);
			this.held = held;
		}

		/**
		 * Ends one hold of the calling thread, as {@link LeaseLock#unlock()} does, with
		 * the exceptions of Spring Integration's registries.
		 * @throws IllegalStateException if the calling thread does not hold this lock
		 * (nothing changes)
		 * @throws ConcurrentModificationException if the lease was lost while held (the
		 * hold is ended all the same)
		 */
		@Override
		public void unlock() {
			if (!this.holders.containsKey(Thread.currentThread())) {
				throw new IllegalStateException("You do not own lock at " + key());
			}
			try {
				super.unlock();
			}
			catch (IllegalStateException | IllegalMonitorStateException ex) {
				throw new ConcurrentModificationException(EXPIRED + " (" + ex.getMessage() + ")", ex);
			}
		}

		@Override
		public void lock(Duration ttl) {
			lockWithLease(ttl);
		}

		@Override
		public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
			return acquire(waitTime, ttl);
		}

		@Override
		protected boolean acquire(Duration wait, @Nullable Duration lease) throws InterruptedException {
			boolean outer = !this.holders.containsKey(Thread.currentThread());
			boolean acquired = super.acquire(wait, lease);
			if (acquired && outer) {
				this.holders.put(Thread.currentThread(), new Hold(lease));
				this.held.merge(this, 1, Integer::sum);
			}
			return acquired;
		}

		@Override
		protected void holdEnded() {
			if (this.holders.remove(Thread.currentThread()) != null) {
				this.held.computeIfPresent(this, (lock, count) -> (count > 1) ? count - 1 : null);
			}
		}

		/**
		 * The fixed lease of the calling thread's hold.
		 * @return the lease, or {@code null} under the watchdog or if the calling thread
		 * does not hold this lock
		 */
		@Nullable Duration fixedLease() {
			Hold hold = this.holders.get(Thread.currentThread());
			return (hold != null) ? hold.fixedLease() : null;
		}

	}

	/** One thread's hold of a registry lock. */
	private record Hold(@Nullable Duration fixedLease) {

	}

}
