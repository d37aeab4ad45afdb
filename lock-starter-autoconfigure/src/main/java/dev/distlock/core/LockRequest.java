package dev.distlock.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What to lock and how: key, type, lease, wait time, permits, provider and an optional
 * logical name. Immutable; build one with {@link #builder(String)}, which validates on
 * {@link Builder#build()} and throws {@link LockConfigurationException} for a blank key,
 * a key longer than {@link #MAX_KEY_LENGTH}, a negative or zero lease, a negative wait,
 * or permits below one.
 * <p>
 * A {@code null} lease means "hold until released": the watchdog renews a short backend
 * lease until the lock is released, so a dead holder's lock frees itself. A {@code null}
 * wait time means the configured default ({@code distlock.default-wait});
 * {@link Duration#ZERO} means "try once".
 *
 * @since 0.1.0
 */
public final class LockRequest {

	/**
	 * The longest key accepted, in characters (before {@code distlock.key-prefix}). Keys
	 * are stored by the backends as they are (Redis keys and channels, ZooKeeper paths,
	 * the fencing counters that outlive a lock), so a key built from unbounded user input
	 * could otherwise cost unbounded memory; hash such input into the key instead.
	 */
	public static final int MAX_KEY_LENGTH = 1024;

	private final String key;

	private final LockType type;

	private final @Nullable Duration lease;

	private final @Nullable Duration waitTime;

	private final int permits;

	private final @Nullable String provider;

	private final @Nullable String name;

	private final @Nullable Duration holdAtLeast;

	private final @Nullable List<String> keys; // null for one key: nothing allocated on
												// the common path

	private LockRequest(Builder builder) {
		this.key = builder.key;
		this.type = builder.type;
		this.lease = builder.lease;
		this.waitTime = builder.waitTime;
		this.permits = builder.permits;
		this.provider = builder.provider;
		this.name = builder.name;
		this.holdAtLeast = builder.holdAtLeast;
		this.keys = builder.sortedKeys;
	}

	/**
	 * Starts a request for a MUTEX on the given key with the configured defaults.
	 * @param key the lock key; must not be blank
	 * @return a builder
	 */
	public static Builder builder(String key) {
		return new Builder(key);
	}

	/**
	 * A MUTEX request on the key, every other setting at its configured default.
	 * @param key the lock key
	 * @return the request
	 */
	public static LockRequest of(String key) {
		return builder(key).build();
	}

	public String key() {
		return this.key;
	}

	public LockType type() {
		return this.type;
	}

	/**
	 * The lease asked for, or {@code null} to hold until released under the watchdog.
	 * @return the lease or {@code null}
	 */
	public @Nullable Duration lease() {
		return this.lease;
	}

	/**
	 * How long to wait for the lock, or {@code null} for the configured default.
	 * @return the wait time or {@code null}
	 */
	public @Nullable Duration waitTime() {
		return this.waitTime;
	}

	/**
	 * The permits of a SEMAPHORE: the most holders at once.
	 * @return the permits; 1 for other types
	 */
	public int permits() {
		return this.permits;
	}

	/**
	 * The provider (backend) to use.
	 * @return its name, or {@code null} for the default one
	 */
	public @Nullable String provider() {
		return this.provider;
	}

	/**
	 * The logical name of the lock, for metrics, traces and the {@code locks} endpoint: a
	 * bounded label such as the annotation's {@code name}, never the key itself (keys are
	 * unbounded). It is not part of the key.
	 * @return the name, or {@code null} if none was given
	 */
	public @Nullable String name() {
		return this.name;
	}

	/**
	 * This request for another key, every other setting kept: what a caller that locks
	 * many keys alike (an annotated method, an integration) builds once and then aims at
	 * each call's key. Only the key is checked. A request of several keys becomes one of
	 * this key alone.
	 * @param key the lock key
	 * @return the request
	 * @throws LockConfigurationException if the key is blank or too long
	 */
	public LockRequest withKey(String key) {
		Builder.checkKey(key);
		return new LockRequest(key, this);
	}

	private LockRequest(String key, LockRequest settings) {
		this.key = key;
		this.type = settings.type;
		this.lease = settings.lease;
		this.waitTime = settings.waitTime;
		this.permits = settings.permits;
		this.provider = settings.provider;
		this.name = settings.name;
		this.holdAtLeast = settings.holdAtLeast;
		this.keys = null;
	}

	/**
	 * A builder initialised from this request.
	 * @return a new builder
	 */
	public Builder toBuilder() {
		Builder builder = new Builder(this.key).type(this.type).permits(this.permits);
		builder.lease = this.lease;
		builder.waitTime = this.waitTime;
		builder.provider = this.provider;
		builder.name = this.name;
		builder.holdAtLeast = this.holdAtLeast;
		builder.keys = this.keys;
		return builder;
	}

	@Override
	public String toString() {
		return "LockRequest[key=" + this.key + ", type=" + this.type + ", lease=" + this.lease + ", waitTime="
				+ this.waitTime + ", permits=" + this.permits + ", provider=" + this.provider + ", name=" + this.name
				+ ", holdAtLeast=" + this.holdAtLeast + "]";
	}

	/**
	 * The shortest time the lock stays taken after it was acquired
	 * ({@link Builder#holdAtLeast(Duration)}).
	 * @return the hold, or {@code null} for none
	 */
	public @Nullable Duration holdAtLeast() {
		return this.holdAtLeast;
	}

	/**
	 * The keys in lock order (sorted, distinct); for several, {@link #key()} is them
	 * joined with commas, a label.
	 * @return the keys
	 */
	public List<String> keys() {
		return (this.keys != null) ? this.keys : List.of(this.key);
	}

	/**
	 * Whether several keys are locked together ({@link Builder#keys(Collection)}).
	 * @return {@code true} for a multi-key request
	 */
	public boolean isMultiKey() {
		return this.keys != null;
	}

	/**
	 * Starts a request that locks several keys together
	 * ({@link Builder#keys(Collection)}).
	 * @param keys the keys, at least one
	 * @return a builder
	 */
	public static Builder builder(Collection<String> keys) {
		return new Builder("").keys(keys);
	}

	/**
	 * Names a setting of the lock with the given key in a failure message of the checks
	 * below: {@code "lease"} becomes "Lease of lock 'k'".
	 * @param key the lock's key
	 * @return the names of the lock's settings: {@code lease}, {@code waitTime},
	 * {@code permits}, {@code holdAtLeast} and {@code type}
	 */
	public static Function<String, String> settingOf(String key) {
		return (setting) -> switch (setting) {
			case "waitTime" -> "Wait time of lock '" + key + "'";
			case "holdAtLeast" -> "Hold-at-least of lock '" + key + "'";
			case "type" -> "the type of lock '" + key + "'";
			default -> Character.toUpperCase(setting.charAt(0)) + setting.substring(1) + " of lock '" + key + "'";
		};
	}

	/**
	 * The lease rule: positive, or {@code null} for the watchdog. The one place it is
	 * written; the builder and the annotation's checks call it.
	 * @param lease the lease, or {@code null}
	 * @param subject names a setting in the message ({@link #settingOf(String)})
	 * @throws LockConfigurationException if the lease is zero or negative
	 */
	public static void checkLease(@Nullable Duration lease, Function<String, String> subject) {
		if (lease != null && (lease.isNegative() || lease.isZero())) {
			throw new LockConfigurationException(subject.apply("lease") + " must be positive, was " + lease);
		}
	}

	/**
	 * The wait rule: not negative ({@link Duration#ZERO} tries once), or {@code null} for
	 * the configured default.
	 * @param waitTime the wait, or {@code null}
	 * @param subject names a setting in the message ({@link #settingOf(String)})
	 * @throws LockConfigurationException if the wait is negative
	 */
	public static void checkWaitTime(@Nullable Duration waitTime, Function<String, String> subject) {
		if (waitTime != null && waitTime.isNegative()) {
			throw new LockConfigurationException(
					subject.apply("waitTime") + " must not be negative (zero tries once), was " + waitTime);
		}
	}

	/**
	 * The permits rule: at least one, and other than one for a SEMAPHORE only.
	 * @param type the lock type
	 * @param permits the permits
	 * @param subject names a setting in the message ({@link #settingOf(String)})
	 * @throws LockConfigurationException if the permits break the rule
	 */
	public static void checkPermits(LockType type, int permits, Function<String, String> subject) {
		if (permits < 1) {
			throw new LockConfigurationException(subject.apply("permits") + " must be at least 1, was " + permits);
		}
		if (permits != 1 && type != LockType.SEMAPHORE) {
			throw new LockConfigurationException(
					"permits=" + permits + " applies to SEMAPHORE only, but " + subject.apply("type") + " is " + type);
		}
	}

	/**
	 * The hold-at-least rule: not negative, and not longer than a fixed lease, which
	 * would free the lock before the hold ends.
	 * @param hold the hold, or {@code null} for none
	 * @param fixedLease the fixed lease it comes with, or {@code null} for the watchdog
	 * @param subject names a setting in the message ({@link #settingOf(String)})
	 * @throws LockConfigurationException if the hold breaks the rule
	 */
	public static void checkHoldAtLeast(@Nullable Duration hold, @Nullable Duration fixedLease,
			Function<String, String> subject) {
		if (hold == null) {
			return;
		}
		if (hold.isNegative()) {
			throw new LockConfigurationException(subject.apply("holdAtLeast") + " must not be negative, was " + hold);
		}
		if (fixedLease != null && hold.compareTo(fixedLease) > 0) {
			throw new LockConfigurationException(
					subject.apply("holdAtLeast") + " (" + hold + ") must not be longer than its fixed lease ("
							+ fixedLease + "): the backend would free the lock before the hold ends");
		}
	}

	/**
	 * Builds a {@link LockRequest}; nothing is checked until {@link #build()}.
	 */
	public static final class Builder {

		private String key;

		private LockType type = LockType.MUTEX;

		private @Nullable Duration lease;

		private @Nullable Duration waitTime;

		private int permits = 1;

		private @Nullable String provider;

		private @Nullable String name;

		private @Nullable Duration holdAtLeast;

		private @Nullable Collection<String> keys;

		private @Nullable List<String> sortedKeys; // set by build()

		private Builder(String key) {
			this.key = key;
		}

		public Builder key(String key) {
			this.key = key;
			this.keys = null;
			return this;
		}

		public Builder type(LockType type) {
			this.type = Objects.requireNonNull(type, "type");
			return this;
		}

		/**
		 * Sets a fixed lease: the backend frees the lock after it unless
		 * {@link Lease#extend(Duration)} is called. {@code null} selects the watchdog.
		 * @param lease the lease, positive
		 * @return this builder
		 */
		public Builder lease(@Nullable Duration lease) {
			this.lease = lease;
			return this;
		}

		/**
		 * Sets the wait time; {@link Duration#ZERO} tries once, {@code null} uses the
		 * configured default.
		 * @param waitTime the wait time, not negative
		 * @return this builder
		 */
		public Builder waitTime(@Nullable Duration waitTime) {
			this.waitTime = waitTime;
			return this;
		}

		public Builder permits(int permits) {
			this.permits = permits;
			return this;
		}

		public Builder provider(@Nullable String provider) {
			this.provider = provider;
			return this;
		}

		/**
		 * Sets the logical name that metrics and traces tag this lock with; keep it
		 * bounded (one value per call site, never per key). Blank means none.
		 * @param name the name, or {@code null}
		 * @return this builder
		 */
		public Builder name(@Nullable String name) {
			this.name = name;
			return this;
		}

		/**
		 * Keeps the lock taken until at least this long after it was acquired, also when
		 * released sooner: the release then shortens the backend lease to what is left
		 * (ShedLock's {@code lockAtLeastFor}). Not negative, not above a fixed
		 * {@link #lease(Duration) lease}; zero or {@code null} means none.
		 * @param holdAtLeast the shortest time the lock stays taken, or {@code null}
		 * @return this builder
		 */
		public Builder holdAtLeast(@Nullable Duration holdAtLeast) {
			this.holdAtLeast = holdAtLeast;
			return this;
		}

		/**
		 * Locks several keys together, all or none, taken in sorted order within one wait
		 * (so overlapping sets never deadlock) and released in reverse; duplicates count
		 * once. Replaces the key.
		 * @param keys the keys, at least one, none blank
		 * @return this builder
		 */
		public Builder keys(Collection<String> keys) {
			this.keys = Objects.requireNonNull(keys, "keys");
			return this;
		}

		/**
		 * Validates and builds the request.
		 * @return the request
		 * @throws LockConfigurationException if a value is out of range
		 */
		public LockRequest build() {
			List<String> sorted = (this.keys != null) ? sortedKeys(this.keys) : null;
			if (sorted != null) {
				this.key = String.join(",", sorted);
			}
			this.sortedKeys = (sorted != null && sorted.size() > 1) ? sorted : null;
			check();
			this.provider = blankToNull(this.provider);
			this.name = blankToNull(this.name);
			return new LockRequest(this);
		}

		/**
		 * Checks the request by the rules below; each failure names the lock and the
		 * value.
		 */
		private void check() {
			String key = this.key;
			checkKey(key);
			Function<String, String> subject = settingOf(key);
			checkLease(this.lease, subject);
			checkWaitTime(this.waitTime, subject);
			checkPermits(this.type, this.permits, subject);
			checkHoldAtLeast(this.holdAtLeast, this.lease, subject);
		}

		private static void checkKey(@Nullable String key) {
			if (key == null || key.isBlank()) {
				throw new LockConfigurationException("Lock key must not be null or blank");
			}
			if (key.length() > MAX_KEY_LENGTH) {
				throw new LockConfigurationException("Lock key must be at most " + MAX_KEY_LENGTH + " characters, was "
						+ key.length() + " ('" + key.substring(0, 40) + "...'); hash long values into the key");
			}
		}

		private static @Nullable String blankToNull(@Nullable String value) {
			return (value != null && value.isBlank()) ? null : value;
		}

		/** The keys of a multi-key request in lock order: sorted and distinct. */
		private static List<String> sortedKeys(Collection<String> keys) {
			if (keys.isEmpty()) {
				throw new LockConfigurationException("A multi-key lock needs at least one key, got none");
			}
			TreeSet<String> sorted = new TreeSet<>();
			for (String each : keys) {
				if (each == null || each.isBlank()) {
					throw new LockConfigurationException(
							"Keys of a multi-key lock must not be null or blank, got " + keys);
				}
				sorted.add(each);
			}
			return List.copyOf(sorted);
		}

	}

}
