package dev.distlock.test;

import java.time.Duration;
import java.util.List;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link LockRecorder} on a template over the local backend: what it records and how its
 * assertions fail.
 */
class LockRecorderTests {

	private final LockRecorder locks = new LockRecorder();

	private final LockTemplate template = new LockTemplate(List.of(new LocalLockProvider()), "local",
			LockSettings.defaults(), List.of(this.locks));

	@AfterEach
	void close() {
		this.template.close();
	}

	@Test
	void recordsKeyTypeLeaseAndProviderOfEachAcquisition() throws Exception {
		this.template.execute(
				LockRequest.builder("order:42").type(LockType.WRITE).lease(Duration.ofSeconds(30)).build(),
				() -> "done");
		this.template.execute("report", () -> "done");
		assertThat(this.locks).locked("order:42")
			.withType(LockType.WRITE)
			.withLease(Duration.ofSeconds(30))
			.onProvider("local");
		assertThat(this.locks).locked("report").withType(LockType.MUTEX).withWatchdog();
		assertThat(this.locks).lockedExactly("order:42", "report").didNotLock("order:43");
		assertThat(this.locks.recorded()).extracting(LockRecorder.RecordedLock::fencingToken)
			.allSatisfy((token) -> assertThat(token).isPositive());
	}

	@Test
	void reentryIsNotRecordedAgain() throws Exception {
		this.template.execute("outer", () -> this.template.execute("outer", () -> "inner"));
		assertThat(this.locks).lockedExactly("outer");
	}

	@Test
	void recordsAnAcquisitionThatFailed() {
		try (Lease held = this.template.acquire(LockRequest.of("busy"))) {
			Thread other = new Thread(
					() -> this.template.tryAcquire(LockRequest.builder("busy").waitTime(Duration.ZERO).build()));
			other.start();
			other.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		assertThat(this.locks).failedToLock("busy").locked("busy");
		this.locks.clear();
		assertThat(this.locks).lockedNothing();
	}

	@Test
	void failuresSayWhatWasRecorded() throws Exception {
		this.template.execute(LockRequest.builder("order:42").lease(Duration.ofSeconds(5)).build(), () -> "done");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(this.locks).locked("order:7"))
			.withMessageContaining("Expected a lock on 'order:7'")
			.withMessageContaining("locked MUTEX 'order:42' on local (lease PT5S)");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.locks).locked("order:42").withType(LockType.READ))
			.withMessage("Expected 'order:42' to be locked as READ, but it was MUTEX");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.locks).locked("order:42").withLease(Duration.ofSeconds(30)))
			.withMessage("Expected 'order:42' to be locked with a lease of PT30S, but it was PT5S");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(this.locks).lockedNothing())
			.withMessageContaining("Expected no lock at all");
	}

}
