package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.ThreadFactory;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The engine's time and thread helpers: durations on the {@link System#nanoTime()} scale
 * without overflow, and the daemon threads every engine thread is made by (their names
 * start with {@code distlock-}).
 */
final class Timing {

	/**
	 * A quarter of the {@code long} range: far enough to be "never", near enough that
	 * adding to it cannot wrap.
	 */
	static final long NEVER_NANOS = Long.MAX_VALUE / 4;

	private Timing() {
	}

	/**
	 * The duration in nanoseconds, or {@link #NEVER_NANOS} for one too long to count in
	 * nanoseconds.
	 * @param duration the duration
	 * @return its nanoseconds, saturated
	 */
	static long saturatedNanos(Duration duration) {
		try {
			return Math.min(duration.toNanos(), NEVER_NANOS);
		}
		catch (ArithmeticException ex) {
			return NEVER_NANOS;
		}
	}

	/**
	 * A factory of daemon threads named {@code prefix} and a number.
	 * @param prefix the name prefix, starting with {@code distlock-}
	 * @return the factory
	 */
	static ThreadFactory daemonThreads(String prefix) {
		CustomizableThreadFactory factory = new CustomizableThreadFactory(prefix);
		factory.setDaemon(true);
		return factory;
	}

}
