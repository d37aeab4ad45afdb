package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Lease#extend(Duration)} while a watchdog renewal is in flight: the backend may
 * apply the renewal, then the extension, while this JVM handles their answers the other
 * way round. The lease's local end must never be later than the backend's, or the lease
 * reads valid while another holder has the lock.
 */
class ExtendDuringRenewalTests {

	private final LocalLockProvider backend = new LocalLockProvider();

	@Test
	void anExtensionAnsweredBeforeAnOverlappingRenewalKeepsTheEarlierEnd() throws Exception {
		CountDownLatch renewalApplied = new CountDownLatch(1);
		CountDownLatch extensionAnswered = new CountDownLatch(1);
		ForwardingLockProvider delaying = new ForwardingLockProvider(this.backend) {

			@Override
			public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
				// the backend applies the renewal at once; its answer is held until the
				// extension was answered
				RenewalOutcome[] outcomes = super.renewAll(locks, lease);
				renewalApplied.countDown();
				try {
					extensionAnswered.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return outcomes;
			}

		};
		LockSettings settings = LockSettings.defaults().withWatchdog(Duration.ofSeconds(6), Duration.ofSeconds(2));
		try (LockTemplate template = new LockTemplate(List.of(delaying), delaying.name(), settings, List.of());
				LockTemplate other = new LockTemplate(this.backend)) {
			Lease lease = template.acquire(LockRequest.builder("extend-race").waitTime(Duration.ZERO).build());
			assertThat(renewalApplied.await(10, TimeUnit.SECONDS)).as("a watchdog renewal was sent").isTrue();
			// applied after the renewal, so the backend now frees the key 300 ms from
			// here
			lease.extend(Duration.ofMillis(300));
			Instant backendEnd = Instant.now().plusMillis(300);
			extensionAnswered.countDown();
			Thread.sleep(100); // the renewal's answer (6 s from when it was sent) comes
								// in meanwhile
			assertThat(lease.expiresAt()).as("the lease's end, never after the backend's")
				.isBeforeOrEqualTo(backendEnd);
			Thread.sleep(400);
			Optional<Lease> successor = other.tryAcquire(
					LockRequest.builder("extend-race").waitTime(Duration.ZERO).lease(Duration.ofSeconds(5)).build());
			assertThat(successor).as("the backend freed the key at the extension's end").isPresent();
			assertThat(lease.isValid()).as("the first lease while another process holds the key").isFalse();
			successor.get().release();
		}
	}

}
