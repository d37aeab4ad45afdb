package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * How values reach the scripts: as bytes, durations in whole milliseconds between 1 and a
 * century (longer ones would overflow Redis' expiry arithmetic), rounded up so that a key
 * never expires before the lease the core counts, numbers as ASCII digits.
 */
final class RedisArgs {

	/** Longest lease sent to Redis (a century). */
	private static final long MAX_MILLIS = Duration.ofDays(36_500).toMillis();

	private RedisArgs() {
	}

	static byte[][] keys(byte[]... keys) {
		return keys;
	}

	static byte[] digits(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static long millis(Duration duration) {
		long millis;
		try {
			millis = duration.toMillis();
			if (duration.getNano() % 1_000_000 != 0 && !duration.isNegative()) {
				// a fraction of a millisecond rounds up: the server must not free the key
				// before the lease ends
				millis++;
			}
		}
		catch (ArithmeticException ex) {
			millis = MAX_MILLIS;
		}
		return Math.max(1, Math.min(millis, MAX_MILLIS));
	}

	/**
	 * A duration in milliseconds with its digits, formatted once.
	 *
	 * @param value the milliseconds
	 * @param digits their digits
	 */
	record Millis(long value, byte[] digits) {

		static Millis of(Duration duration) {
			return of(millis(duration));
		}

		static Millis of(long value) {
			return new Millis(value, RedisArgs.digits(value));
		}

	}

}
