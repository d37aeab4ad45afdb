package dev.distlock.core;

import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ManyWatchdogLeases;
import org.junit.jupiter.api.Test;

/** Ten thousand watchdog leases on {@code local}: two threads of distlock's, batched renewals. */
class ManyWatchdogLeasesTests {

	@Test
	void tenThousandWatchdogLeasesUseTwoThreadsAndBatchedRenewals() throws Exception {
		ManyWatchdogLeases.check(new LocalLockProvider());
	}

}
