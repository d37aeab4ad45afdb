package dev.distlock.core;

import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ManyWatchdogLeases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ten thousand watchdog leases on {@code local}: two threads of distlock's, batched
 * renewals.
 */
class ManyWatchdogLeasesTests {

	@Test
	void tenThousandWatchdogLeasesUseTwoThreadsAndBatchedRenewals() throws Exception {
		ManyWatchdogLeases.Result result = ManyWatchdogLeases.hold(new LocalLockProvider());
		assertThat(result.ownThreads()).as("distlock's own threads while holding 10,000 watchdog leases")
			.hasSizeLessThanOrEqualTo(2);
		assertThat(result.batchesPerPeriod()).as("backend calls per renewal period")
			.isPositive()
			.isLessThanOrEqualTo(100);
		assertThat(result.valid()).as("leases renewed, none lost").isEqualTo(ManyWatchdogLeases.LEASES);
		assertThat(result.watched()).isEqualTo(ManyWatchdogLeases.LEASES);
		assertThat(result.leftAfterRelease()).isZero();
	}

}
