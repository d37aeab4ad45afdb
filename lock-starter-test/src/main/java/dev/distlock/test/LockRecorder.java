package dev.distlock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.core.Lease;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import org.assertj.core.api.AssertProvider;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockListener} that records every lock an application acquires or fails to
 * acquire, so that a test can assert which keys a call locked, with which type and lease:
 * <pre class="code">
 * assertThat(locks).locked("order:42").withType(LockType.MUTEX).withLease(Duration.ofSeconds(30));
 * </pre> Re-entry is not recorded (the core does not report it); the outermost
 * acquisition is. Safe for concurrent use. Registered as a bean by
 * {@link dev.distlock.test.autoconfigure.AutoConfigureLockRecorder @AutoConfigureLockRecorder}
 * and
 * {@link dev.distlock.test.autoconfigure.AutoConfigureLocalLocks @AutoConfigureLocalLocks};
 * or pass one to a {@code LockTemplate} by hand.
 *
 * @since 0.1.0
 */
public class LockRecorder implements LockListener, AssertProvider<LockRecorderAssert> {

	private final List<RecordedLock> recorded = new CopyOnWriteArrayList<>();

	// the core reports acquiring and its outcome on one thread, so the request waits here
	// for its outcome
	private final ThreadLocal<LockRequest> pending = new ThreadLocal<>();

	@Override
	public void acquiring(LockRequest request, String provider) {
		this.pending.set(request);
	}

	@Override
	public void acquired(Lease lease, String provider, long waitNanos) {
		LockRequest request = takePending(lease.key());
		this.recorded.add(new RecordedLock(lease.key(), lease.type(), (request != null) ? request.lease() : null,
				(request != null) ? request.waitTime() : null, provider, true, lease.fencingToken()));
	}

	@Override
	public void acquireFailed(LockRequest request, String provider, long waitNanos, @Nullable Throwable error) {
		takePending(request.key());
		this.recorded.add(new RecordedLock(request.key(), request.type(), request.lease(), request.waitTime(), provider,
				false, 0));
	}

	private @Nullable LockRequest takePending(String key) {
		LockRequest request = this.pending.get();
		this.pending.remove();
		return (request != null && request.key().equals(key)) ? request : null;
	}

	/**
	 * Everything recorded so far, in order.
	 * @return the recorded acquisitions and failures
	 */
	public List<RecordedLock> recorded() {
		return List.copyOf(this.recorded);
	}

	/**
	 * Forgets everything recorded so far, e.g. between the steps of a test.
	 */
	public void clear() {
		this.recorded.clear();
	}

	@Override
	public LockRecorderAssert assertThat() {
		return new LockRecorderAssert(this);
	}

	/**
	 * One recorded acquisition (or failed acquisition).
	 *
	 * @param key the key as requested (without {@code distlock.key-prefix})
	 * @param type the lock type
	 * @param lease the fixed lease requested, or {@code null} when the caller asked for
	 * none (the watchdog, or {@code distlock.default-lease}, applies)
	 * @param waitTime the wait requested, or {@code null} for the configured default
	 * @param provider the backend's name
	 * @param acquired whether the lock was acquired
	 * @param fencingToken the lease's fencing token, {@code 0} if not acquired
	 */
	public record RecordedLock(String key, LockType type, @Nullable Duration lease, @Nullable Duration waitTime,
			String provider, boolean acquired, long fencingToken) {

		@Override
		public String toString() {
			return (this.acquired ? "locked " : "failed to lock ") + this.type + " '" + this.key + "' on "
					+ this.provider + " (lease " + ((this.lease != null) ? this.lease : "renewed by the watchdog")
					+ ")";
		}

	}

}
