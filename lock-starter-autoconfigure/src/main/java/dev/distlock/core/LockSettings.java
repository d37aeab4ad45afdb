package dev.distlock.core;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The defaults and tuning {@link LockTemplate} works with; bound from {@code distlock.*}
 * by the auto-configuration. Immutable; start from {@link #defaults()} and change with
 * the {@code with...} methods, which validate.
 *
 * @param keyPrefix prepended to every key before it reaches a backend
 * @param defaultLease lease of requests that give none; {@code null} means hold until
 * released under the watchdog
 * @param defaultWait wait time of requests that give none
 * @param watchdogLease backend lease of watchdog-renewed locks: how long a dead holder
 * blocks the key
 * @param watchdogInterval renewal interval of watchdog-renewed locks, below
 * {@code watchdogLease}
 * @param onLeaseLost what happens to the holding thread when its lease is lost
 * @param minBackoff first poll interval of a waiter without release notifications
 * @param maxBackoff longest poll interval of a waiter without release notifications
 * @param fallbackPoll longest sleep of a waiter with release notifications (bounds the
 * cost of a lost message)
 * @param watchdogThreads how many renewal batches may be in flight at once (the lease
 * clock's thread comes on top)
 * @param callTimeout longest time one backend call may take when nothing tighter bounds
 * it: a release, a renewal, a health check; an acquisition's calls end by its wait's
 * deadline plus this. It bounds distlock's own calls whatever the client library's
 * timeouts are; a shorter client timeout still applies
 * @since 0.1.0
 */
public record LockSettings(String keyPrefix, @Nullable Duration defaultLease, Duration defaultWait,
		Duration watchdogLease, Duration watchdogInterval, int watchdogThreads, LeaseLostAction onLeaseLost,
		Duration minBackoff, Duration maxBackoff, Duration fallbackPoll, Duration callTimeout) {

	/**
	 * What to do to the holder's thread when its lease is lost.
	 */
	public enum LeaseLostAction {

		/**
		 * Mark the lease lost and run its callbacks; the aspect raises
		 * {@link LockLostException} on return.
		 */
		NOTIFY,

		/**
		 * Also interrupt the thread running the guarded code, so blocking work stops
		 * early.
		 */
		INTERRUPT

	}

	public LockSettings {
		Objects.requireNonNull(keyPrefix, "keyPrefix");
		positive("distlock.default-lease", defaultLease);
		notNegative("distlock.default-wait", defaultWait);
		positive("distlock.watchdog.lease", watchdogLease);
		positive("distlock.watchdog.interval", watchdogInterval);
		if (watchdogInterval.compareTo(watchdogLease) >= 0) {
			throw new LockConfigurationException("distlock.watchdog.interval (" + watchdogInterval
					+ ") must be shorter than distlock.watchdog.lease (" + watchdogLease + ")");
		}
		if (watchdogThreads < 1) {
			throw new LockConfigurationException(
					"distlock.watchdog.threads must be at least 1, was " + watchdogThreads);
		}
		Objects.requireNonNull(onLeaseLost, "onLeaseLost");
		positive("distlock.wait.min-backoff", minBackoff);
		positive("distlock.wait.max-backoff", maxBackoff);
		positive("distlock.wait.fallback-poll", fallbackPoll);
		positive("distlock.call-timeout", callTimeout);
		if (maxBackoff.compareTo(minBackoff) < 0) {
			throw new LockConfigurationException("distlock.wait.max-backoff (" + maxBackoff
					+ ") must not be shorter than distlock.wait.min-backoff (" + minBackoff + ")");
		}
	}

	/**
	 * The defaults: prefix {@code lock:}, watchdog lease 30 s renewed every 10 s by one
	 * renewal thread, default wait 10 s, backoff 5 ms to 200 ms, fallback poll 500 ms,
	 * call timeout 1 s.
	 * @return the default settings
	 */
	public static LockSettings defaults() {
		return new LockSettings("lock:", null, Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(10),
				1, LeaseLostAction.NOTIFY, Duration.ofMillis(5), Duration.ofMillis(200), Duration.ofMillis(500),
				Duration.ofSeconds(1));
	}

	public LockSettings withKeyPrefix(String keyPrefix) {
		return new LockSettings(keyPrefix, this.defaultLease, this.defaultWait, this.watchdogLease,
				this.watchdogInterval, this.watchdogThreads, this.onLeaseLost, this.minBackoff, this.maxBackoff,
				this.fallbackPoll, this.callTimeout);
	}

	public LockSettings withDefaultLease(@Nullable Duration defaultLease) {
		return new LockSettings(this.keyPrefix, defaultLease, this.defaultWait, this.watchdogLease,
				this.watchdogInterval, this.watchdogThreads, this.onLeaseLost, this.minBackoff, this.maxBackoff,
				this.fallbackPoll, this.callTimeout);
	}

	public LockSettings withDefaultWait(Duration defaultWait) {
		return new LockSettings(this.keyPrefix, this.defaultLease, defaultWait, this.watchdogLease,
				this.watchdogInterval, this.watchdogThreads, this.onLeaseLost, this.minBackoff, this.maxBackoff,
				this.fallbackPoll, this.callTimeout);
	}

	/**
	 * Sets the watchdog lease and interval; a {@code null} interval means a third of the
	 * lease.
	 * @param lease the watchdog lease
	 * @param interval the renewal interval or {@code null}
	 * @return new settings
	 */
	public LockSettings withWatchdog(Duration lease, @Nullable Duration interval) {
		return new LockSettings(this.keyPrefix, this.defaultLease, this.defaultWait, lease,
				(interval != null) ? interval : lease.dividedBy(3), this.watchdogThreads, this.onLeaseLost,
				this.minBackoff, this.maxBackoff, this.fallbackPoll, this.callTimeout);
	}

	public LockSettings withOnLeaseLost(LeaseLostAction onLeaseLost) {
		return new LockSettings(this.keyPrefix, this.defaultLease, this.defaultWait, this.watchdogLease,
				this.watchdogInterval, this.watchdogThreads, onLeaseLost, this.minBackoff, this.maxBackoff,
				this.fallbackPoll, this.callTimeout);
	}

	public LockSettings withBackoff(Duration minBackoff, Duration maxBackoff, Duration fallbackPoll) {
		return new LockSettings(this.keyPrefix, this.defaultLease, this.defaultWait, this.watchdogLease,
				this.watchdogInterval, this.watchdogThreads, this.onLeaseLost, minBackoff, maxBackoff, fallbackPoll,
				this.callTimeout);
	}

	/**
	 * Sets how many renewal batches may be in flight at once.
	 * @param threads the renewal threads, at least one
	 * @return new settings
	 */
	public LockSettings withWatchdogThreads(int threads) {
		return new LockSettings(this.keyPrefix, this.defaultLease, this.defaultWait, this.watchdogLease,
				this.watchdogInterval, threads, this.onLeaseLost, this.minBackoff, this.maxBackoff, this.fallbackPoll,
				this.callTimeout);
	}

	/**
	 * Sets the longest time one backend call may take when nothing tighter bounds it.
	 * @param callTimeout the call timeout, positive
	 * @return new settings
	 */
	public LockSettings withCallTimeout(Duration callTimeout) {
		return new LockSettings(this.keyPrefix, this.defaultLease, this.defaultWait, this.watchdogLease,
				this.watchdogInterval, this.watchdogThreads, this.onLeaseLost, this.minBackoff, this.maxBackoff,
				this.fallbackPoll, callTimeout);
	}

	private static void positive(String name, @Nullable Duration value) {
		if (value != null && (value.isNegative() || value.isZero())) {
			throw new LockConfigurationException(name + " must be positive, was " + value);
		}
	}

	private static void notNegative(String name, Duration value) {
		Objects.requireNonNull(value, name);
		if (value.isNegative()) {
			throw new LockConfigurationException(name + " must not be negative, was " + value);
		}
	}

}
