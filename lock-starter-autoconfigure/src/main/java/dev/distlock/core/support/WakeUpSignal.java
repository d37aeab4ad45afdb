package dev.distlock.core.support;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One waiter's wake-up flag: {@link #signal()} from any thread wakes the next or the
 * current {@link #await(long)}; a signal given before the wait is kept, repeated signals
 * collapse into one. Used by the core's wait loop and by backends that own their waiting.
 *
 * @since 0.1.0
 */
public final class WakeUpSignal {

	private final Semaphore signals = new Semaphore(0);

	/** Wakes the waiter, now or at its next wait. */
	public void signal() {
		if (this.signals.availablePermits() == 0) {
			this.signals.release();
		}
	}

	/**
	 * Waits until signalled or until the time is up, and clears the signal.
	 * @param nanos the longest wait
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void await(long nanos) throws InterruptedException {
		if (this.signals.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
			this.signals.drainPermits();
		}
	}

}
