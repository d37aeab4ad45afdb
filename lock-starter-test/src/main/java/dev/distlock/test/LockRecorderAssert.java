package dev.distlock.test;

import java.time.Duration;
import java.util.List;

import dev.distlock.core.LockType;
import dev.distlock.test.LockRecorder.RecordedLock;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.AbstractObjectAssert;

/**
 * AssertJ assertions on a {@link LockRecorder}:
 * {@code assertThat(locks).locked("order:42")}. Obtained through
 * {@code Assertions.assertThat(recorder)}, as the recorder is an
 * {@link org.assertj.core.api.AssertProvider}.
 *
 * @since 0.1.0
 */
public class LockRecorderAssert extends AbstractAssert<LockRecorderAssert, LockRecorder> {

	LockRecorderAssert(LockRecorder actual) {
		super(actual, LockRecorderAssert.class);
	}

	/**
	 * Verifies that the key was locked, and continues with its latest acquisition.
	 * @param key the key as requested (without {@code distlock.key-prefix})
	 * @return assertions on that acquisition
	 */
	public RecordedLockAssert locked(String key) {
		isNotNull();
		List<RecordedLock> matching = this.actual.recorded()
			.stream()
			.filter((lock) -> lock.acquired() && lock.key().equals(key))
			.toList();
		if (matching.isEmpty()) {
			failWithMessage("Expected a lock on '%s' to have been acquired, but the recorded locks were %s", key,
					this.actual.recorded());
		}
		return new RecordedLockAssert(matching.get(matching.size() - 1));
	}

	/**
	 * Verifies that the key was never locked.
	 * @param key the key as requested
	 * @return this
	 */
	public LockRecorderAssert didNotLock(String key) {
		isNotNull();
		List<RecordedLock> matching = this.actual.recorded()
			.stream()
			.filter((lock) -> lock.acquired() && lock.key().equals(key))
			.toList();
		if (!matching.isEmpty()) {
			failWithMessage("Expected no lock on '%s', but found %s", key, matching);
		}
		return this;
	}

	/**
	 * Verifies that an acquisition of the key failed (it was busy for the whole wait, or
	 * the backend failed).
	 * @param key the key as requested
	 * @return this
	 */
	public LockRecorderAssert failedToLock(String key) {
		isNotNull();
		boolean failed = this.actual.recorded().stream().anyMatch((lock) -> !lock.acquired() && lock.key().equals(key));
		if (!failed) {
			failWithMessage("Expected a failed acquisition of '%s', but the recorded locks were %s", key,
					this.actual.recorded());
		}
		return this;
	}

	/**
	 * Verifies that nothing was locked or tried.
	 * @return this
	 */
	public LockRecorderAssert lockedNothing() {
		isNotNull();
		if (!this.actual.recorded().isEmpty()) {
			failWithMessage("Expected no lock at all, but the recorded locks were %s", this.actual.recorded());
		}
		return this;
	}

	/**
	 * Verifies that exactly these keys were locked, in this order, and nothing else was
	 * tried.
	 * @param keys the keys as requested
	 * @return this
	 */
	public LockRecorderAssert lockedExactly(String... keys) {
		isNotNull();
		List<String> recorded = this.actual.recorded().stream().map(RecordedLock::key).toList();
		boolean allAcquired = this.actual.recorded().stream().allMatch(RecordedLock::acquired);
		if (!allAcquired || !recorded.equals(List.of(keys))) {
			failWithMessage("Expected exactly the locks %s, but the recorded locks were %s", List.of(keys),
					this.actual.recorded());
		}
		return this;
	}

	/**
	 * Assertions on one recorded acquisition.
	 */
	public static class RecordedLockAssert extends AbstractObjectAssert<RecordedLockAssert, RecordedLock> {

		RecordedLockAssert(RecordedLock actual) {
			super(actual, RecordedLockAssert.class);
		}

		/**
		 * Verifies the lock type.
		 * @param type the expected type
		 * @return this
		 */
		public RecordedLockAssert withType(LockType type) {
			if (this.actual.type() != type) {
				failWithMessage("Expected '%s' to be locked as %s, but it was %s", this.actual.key(), type,
						this.actual.type());
			}
			return this;
		}

		/**
		 * Verifies the fixed lease requested.
		 * @param lease the expected lease
		 * @return this
		 */
		public RecordedLockAssert withLease(Duration lease) {
			if (!lease.equals(this.actual.lease())) {
				failWithMessage("Expected '%s' to be locked with a lease of %s, but it was %s", this.actual.key(),
						lease, (this.actual.lease() != null) ? this.actual.lease() : "renewed by the watchdog");
			}
			return this;
		}

		/**
		 * Verifies that no fixed lease was requested, so the watchdog renews it.
		 * @return this
		 */
		public RecordedLockAssert withWatchdog() {
			if (this.actual.lease() != null) {
				failWithMessage("Expected '%s' to be renewed by the watchdog, but it had a fixed lease of %s",
						this.actual.key(), this.actual.lease());
			}
			return this;
		}

		/**
		 * Verifies the backend.
		 * @param provider the expected provider name
		 * @return this
		 */
		public RecordedLockAssert onProvider(String provider) {
			if (!provider.equals(this.actual.provider())) {
				failWithMessage("Expected '%s' to be locked on %s, but it was locked on %s", this.actual.key(),
						provider, this.actual.provider());
			}
			return this;
		}

	}

}
