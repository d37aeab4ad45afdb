package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog's renewal thread while leases are held: one thread renews period after
 * period, rather than a new one per period because the last ended idle just before the
 * next renewal fell due.
 */
class RenewalThreadTests {

	@Test
	void oneThreadRenewsEveryPeriodWhenTheIntervalIsLongerThanTenSeconds() throws Exception {
		List<Thread> renewers = new CopyOnWriteArrayList<>();
		ForwardingLockProvider recording = new ForwardingLockProvider(new LocalLockProvider()) {

			@Override
			public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
				renewers.add(Thread.currentThread());
				return super.renewAll(locks, lease);
			}

		};
		// an interval past the renewal threads' shortest keep-alive (10 s): a thread that
		// kept only that ended before each next renewal
		LockSettings settings = LockSettings.defaults().withWatchdog(Duration.ofSeconds(36), Duration.ofSeconds(12));
		try (LockTemplate template = new LockTemplate(List.of(recording), recording.name(), settings, List.of())) {
			Lease lease = template.acquire(LockRequest.builder("renewal-thread").waitTime(Duration.ZERO).build());
			long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
			while (renewers.size() < 2 && System.nanoTime() < deadline) {
				Thread.sleep(100);
			}
			assertThat(renewers).as("renewals within two intervals and a bit").hasSizeGreaterThanOrEqualTo(2);
			assertThat(renewers.get(1))
				.as("the thread of the second renewal (%s), against the first's (%s)", renewers.get(1).getName(),
						renewers.get(0).getName())
				.isSameAs(renewers.get(0));
			assertThat(lease.isValid()).isTrue();
			lease.release();
		}
	}

}
