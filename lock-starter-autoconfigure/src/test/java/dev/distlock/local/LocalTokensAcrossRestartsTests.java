package dev.distlock.local;

import java.time.Duration;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local backend's fencing tokens keep rising across restarts of the application: a
 * fenced write ({@code WHERE token < ?}) that saw the last run's tokens must accept the
 * next run's.
 */
class LocalTokensAcrossRestartsTests {

	@Test
	void theFirstTokenAfterARestartIsAboveEveryTokenOfThePreviousRun() {
		long last = 0;
		try (LockTemplate firstRun = new LockTemplate(new LocalLockProvider())) {
			for (int i = 0; i < 1000; i++) {
				try (Lease lease = firstRun.acquire(request())) {
					last = lease.fencingToken();
				}
			}
		}
		try (LockTemplate afterRestart = new LockTemplate(new LocalLockProvider());
				Lease first = afterRestart.acquire(request())) {
			assertThat(first.fencingToken()).as("first token after the restart").isGreaterThan(last);
		}
	}

	private static LockRequest request() {
		return LockRequest.builder("account:42").waitTime(Duration.ZERO).build();
	}

}
