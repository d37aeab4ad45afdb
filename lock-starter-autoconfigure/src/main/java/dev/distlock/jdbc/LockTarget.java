package dev.distlock.jdbc;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;

/**
 * Where a lock's rows are, how its release notifications are addressed, and the values
 * its statements bind.
 *
 * @param storedKey the key as stored ({@link StoredKeys#storedKey(String)})
 * @param kind the kind letter ({@link StoredKeys#kind})
 * @param channel the notification channel, or empty without notifications
 */
record LockTarget(String storedKey, String kind, String channel) {

	/** The longest lease the database is asked to compute, so no date overflows. */
	private static final long MAX_LEASE_MICROS = Duration.ofDays(3650).toNanos() / 1000;

	private static final int MAX_OWNER = 100;

	/**
	 * The lock an attempt is for.
	 * @param attempt the attempt
	 * @param channel the notification channel, or empty
	 * @return the target
	 * @throws IllegalArgumentException if the owner token does not fit the owner column
	 * @throws LockConfigurationException if a semaphore has no permit
	 */
	static LockTarget of(LockAttempt attempt, String channel) {
		String owner = attempt.owner();
		if (owner.length() > MAX_OWNER || !owner.chars().allMatch((c) -> c < 128)) {
			throw new IllegalArgumentException(
					"Owner token must be ASCII and at most " + MAX_OWNER + " characters: " + owner);
		}
		if (attempt.type() == LockType.SEMAPHORE && attempt.permits() < 1) {
			throw new LockConfigurationException("A semaphore needs at least one permit: " + attempt);
		}
		return new LockTarget(StoredKeys.storedKey(attempt.key()), StoredKeys.kind(attempt.type()), channel);
	}

	/**
	 * The operation that acquires a type, in {@code operations-<dialect>.sql}.
	 * @param type the type
	 * @return the operation's name
	 */
	static String acquireOperation(LockType type) {
		return switch (type) {
			case MUTEX -> "acquire-mutex";
			case FAIR -> "acquire-fair";
			case READ -> "acquire-read";
			case WRITE -> "acquire-write";
			case SEMAPHORE -> "acquire-semaphore";
		};
	}

	/**
	 * A duration as the statements take it: microseconds, at least 1, at most ten years
	 * (so no date overflows).
	 * @param duration the duration
	 * @return the microseconds
	 */
	static long micros(Duration duration) {
		long micros;
		try {
			micros = duration.toNanos() / 1000;
		}
		catch (ArithmeticException ex) {
			micros = MAX_LEASE_MICROS;
		}
		return Math.max(1, Math.min(micros, MAX_LEASE_MICROS));
	}

	/**
	 * The bind parameters every operation on this lock uses.
	 * @param owner the owner token
	 * @return a new, modifiable map
	 */
	Map<String, Object> parameters(String owner) {
		Map<String, Object> parameters = new HashMap<>();
		parameters.put("key", this.storedKey);
		parameters.put("kind", this.kind);
		parameters.put("owner", owner);
		parameters.put("channel", this.channel);
		parameters.put("payload", payload());
		return parameters;
	}

	/**
	 * What a release notification carries: the kind and the stored key.
	 * @return the payload
	 */
	String payload() {
		return this.kind + this.storedKey;
	}

}
