package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An interrupt that arrives while a release is on its way to the backend loses neither
 * the release nor the interrupt. A client gives such a call up, with an exception caused
 * by the {@link InterruptedException} or with the thread's interrupt status set (as
 * Lettuce and Redisson do); the core sends the release again, so the key is free as soon
 * as {@link Lease#release()} returns, and the releasing thread is still interrupted.
 */
class InterruptDuringReleaseTests {

	@Test
	void releaseGivenUpWithAnInterruptedCauseIsSentAgain() throws Exception {
		releaseInterruptedMidCallFreesTheKey(false);
	}

	@Test
	void releaseGivenUpWithTheInterruptStatusSetIsSentAgain() throws Exception {
		releaseInterruptedMidCallFreesTheKey(true);
	}

	private void releaseInterruptedMidCallFreesTheKey(boolean statusOnly) throws Exception {
		LocalLockProvider backend = new LocalLockProvider();
		ReleaseBlockedUntilInterrupted holderSide = new ReleaseBlockedUntilInterrupted(new LocalLockProvider(backend),
				statusOnly);
		try (LockTemplate holder = template(holderSide);
				LockTemplate other = template(new LocalLockProvider(backend))) {
			AtomicBoolean interruptedAfter = new AtomicBoolean();
			Thread releasing = new Thread(() -> {
				Lease lease = holder.acquire(LockRequest.of("k"));
				lease.release();
				interruptedAfter.set(Thread.currentThread().isInterrupted());
			});
			releasing.start();
			assertThat(holderSide.releaseBlocked.await(10, TimeUnit.SECONDS)).as("release reached the backend")
				.isTrue();
			releasing.interrupt();
			releasing.join(TimeUnit.SECONDS.toMillis(10));
			assertThat(releasing.isAlive()).as("release returned").isFalse();
			assertThat(holderSide.releases.get()).as("release calls: the interrupted one, then one sent again")
				.isEqualTo(2);
			assertThat(interruptedAfter).as("the releasing thread's interrupt, kept for its caller").isTrue();
			Optional<Lease> next = other.tryAcquire(LockRequest.builder("k").waitTime(Duration.ZERO).build());
			assertThat(next).as("another process, right after the interrupted release (the watchdog lease is 30 s)")
				.isPresent();
			next.get().release();
		}
	}

	private static LockTemplate template(LockProvider<?> provider) {
		return new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults(), List.of());
	}

	/**
	 * A backend whose first release waits until its thread is interrupted and then fails
	 * without releasing, as a client does that cancels a command it has not written yet.
	 */
	private static final class ReleaseBlockedUntilInterrupted extends ForwardingLockProvider {

		final CountDownLatch releaseBlocked = new CountDownLatch(1);

		final AtomicInteger releases = new AtomicInteger();

		private final boolean statusOnly;

		ReleaseBlockedUntilInterrupted(LockProvider<?> delegate, boolean statusOnly) {
			super(delegate);
			this.statusOnly = statusOnly;
		}

		@Override
		public void release(HeldLock lock) throws Exception {
			if (this.releases.incrementAndGet() > 1) {
				super.release(lock);
				return;
			}
			this.releaseBlocked.countDown();
			try {
				new CountDownLatch(1).await();
			}
			catch (InterruptedException ex) {
				if (this.statusOnly) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Command interrupted");
				}
				throw new IllegalStateException("Command interrupted", ex);
			}
		}

	}

}
