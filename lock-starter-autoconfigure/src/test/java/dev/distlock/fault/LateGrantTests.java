package dev.distlock.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A grant whose reply reaches the core after the lease, counted from the request, already
 * ran out (a reply delayed by the network, a stalled JVM): the guarded work must not run
 * on it.
 */
class LateGrantTests {

	@Test
	void workNeverRunsOnAGrantAnsweredAfterItsLeaseRanOut() {
		AtomicBoolean slow = new AtomicBoolean(true);
		ForwardingLockProvider lateReplies = new ForwardingLockProvider(new LocalLockProvider()) {
			@Override
			public HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
				HeldLock held = delegate().acquire(attempt, waiter);
				if (slow.getAndSet(false)) {
					TimeUnit.MILLISECONDS.sleep(300); // the reply travels longer than the
														// lease
				}
				return held;
			}
		};
		try (LockTemplate template = new LockTemplate(List.of(lateReplies), "local",
				LockSettings.defaults().withKeyPrefix("late:"), List.of())) {
			AtomicBoolean ranInvalid = new AtomicBoolean();
			try {
				template.execute(
						LockRequest.builder("k").lease(Duration.ofMillis(100)).waitTime(Duration.ofSeconds(2)).build(),
						() -> {
							ranInvalid.set(!LockContext.currentLease().isValid());
							return null;
						});
			}
			catch (RuntimeException ex) {
				// a LockAcquisitionException or LockLostException is an acceptable answer
			}
			assertThat(ranInvalid).as("the guarded work ran on a lease that was already out of time").isFalse();
		}
	}

}
