package dev.distlock.shedlock;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} that takes its locks from
 * a distlock {@link LockTemplate}, so {@code @SchedulerLock} code moves to any distlock
 * backend. {@link DistlockShedLockAutoConfiguration} declares one unless the application
 * defines a ShedLock {@code LockProvider} of its own.
 * <p>
 * Each ShedLock lock is a MUTEX on the lock's name (with {@code distlock.key-prefix}),
 * tried once without waiting: {@code lockAtMostFor} is the fixed lease (no watchdog),
 * {@code lockAtLeastFor} the {@link LockRequest#holdAtLeast() hold-at-least}, and
 * {@link SimpleLock#extend(Duration, Duration)} extends the lease and raises the hold in
 * one call ({@link Lease#extend(Duration, Duration)}). As ShedLock expects, a lock is not
 * re-entrant: the thread that holds it is refused like anyone else. A lock granted after
 * its {@code lockAtMostFor} had already run out (possible when it is shorter than a round
 * trip to the backend) is handed out as a lock that is already over, the way ShedLock's
 * own providers hand out a lock whose {@code lockAtMostFor} passes while the task runs:
 * the task runs, its unlock does nothing and it cannot be extended.
 *
 * @since 0.3.0
 */
public class DistlockLockProvider implements ExtensibleLockProvider {

	private final LockTemplate template;

	private final @Nullable String provider;

	/**
	 * Creates a provider on the template's default backend.
	 * @param template the lock template
	 */
	public DistlockLockProvider(LockTemplate template) {
		this(template, null);
	}

	/**
	 * Creates a provider on one of the template's backends.
	 * @param template the lock template
	 * @param provider the name of the backend ({@code distlock.provider}), or
	 * {@code null} for the default
	 */
	public DistlockLockProvider(LockTemplate template, @Nullable String provider) {
		this.template = template;
		this.provider = provider;
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Duration atMost = configuration.getLockAtMostFor();
		Duration atLeast = configuration.getLockAtLeastFor();
		LockRequest request = LockRequest.builder(configuration.getName())
			.lease(atMost)
			.waitTime(Duration.ZERO)
			.holdAtLeast(atLeast.isZero() ? null : atLeast)
			.provider(this.provider)
			.build();
		long start = System.nanoTime();
		Optional<Lease> lease;
		try {
			lease = this.template.tryAcquire(request);
		}
		catch (LockAcquisitionException ex) {
			if (isLateGrant(ex, start, atMost)) {
				return Optional.of(new TemplateLock(null));
			}
			throw ex;
		}
		// a ShedLock lock belongs to no thread: the holder's next attempt must be
		// refused, not re-entered
		lease.ifPresent(this.template::detach);
		return lease.map(TemplateLock::new);
	}

	/**
	 * A grant refused because it came after its lease had run out: no backend failure
	 * caused it, and the attempt took at least the whole lease.
	 */
	private static boolean isLateGrant(LockAcquisitionException ex, long start, Duration lease) {
		return ex.getCause() == null && System.nanoTime() - start >= lease.toNanos();
	}

	/**
	 * One ShedLock lock over a lease; used once, by an unlock or an extension, as
	 * ShedLock's contract says.
	 */
	private static final class TemplateLock implements SimpleLock {

		private final @Nullable Lease lease;

		private volatile boolean used;

		/**
		 * A ShedLock lock over a distlock lease.
		 * @param lease the lease, or {@code null} for a lock granted after it was already
		 * over
		 */
		TemplateLock(@Nullable Lease lease) {
			this.lease = lease;
		}

		@Override
		public void unlock() {
			checkUnused();
			this.used = true;
			if (this.lease != null) {
				this.lease.release();
			}
		}

		/**
		 * Extends the lease. The lock counts as used only once the backend answered (as
		 * in ShedLock's {@code AbstractSimpleLock}): an extension that fails otherwise
		 * than by finding the lock lost (a timeout, say) throws and leaves this lock as
		 * it was, so the unlock in ShedLock's {@code finally} still releases the lease
		 * and the task's own exception is not masked.
		 */
		@Override
		public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
			checkUnused();
			if (this.lease == null) {
				this.used = true;
				return Optional.empty();
			}
			try {
				this.lease.extend(lockAtMostFor, lockAtLeastFor);
			}
			catch (LockLostException ex) {
				this.used = true;
				return Optional.empty();
			}
			this.used = true;
			return Optional.of(new TemplateLock(this.lease));
		}

		private void checkUnused() {
			if (this.used) {
				throw new IllegalStateException(
						"ShedLock lock " + ((this.lease != null) ? "'" + this.lease.key() + "' " : "")
								+ "was already unlocked or extended");
			}
		}

	}

}
