package dev.distlock.fault;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockSettings.LeaseLostAction;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease released by an operator ({@link LockTemplate#forceRelease(String)}, the locks
 * endpoint's delete) while its work runs under {@code distlock.on-lease-lost=interrupt}:
 * the work is interrupted, {@code execute} reports the loss, and the interrupt does not
 * outlive the call on the pooled thread.
 */
class ForcedReleaseInterruptTests {

	private final ExecutorService pool = Executors.newSingleThreadExecutor();

	private LockTemplate template;

	private volatile boolean interruptedAfter;

	@AfterEach
	void close() {
		this.pool.shutdownNow();
		if (this.template != null) {
			this.template.close();
		}
	}

	@Test
	void forcedReleaseIsReportedAndItsInterruptDoesNotLeak() throws Exception {
		this.template = new LockTemplate(List.of(new LocalLockProvider()), "local",
				LockSettings.defaults().withKeyPrefix("forced:").withOnLeaseLost(LeaseLostAction.INTERRUPT), List.of());
		CountDownLatch working = new CountDownLatch(1);
		Future<Throwable> call = this.pool.submit(() -> {
			Throwable raised = null;
			try {
				this.template.execute(LockRequest.builder("job").build(), () -> {
					working.countDown();
					// careless work: runs on until its lease is gone, keeps the interrupt
					// flag set
					while (LockContext.currentLease().isValid()) {
						Thread.onSpinWait();
					}
					long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
					while (System.nanoTime() < end) {
						Thread.onSpinWait();
					}
					return null;
				});
			}
			catch (RuntimeException ex) {
				raised = ex;
			}
			// ThreadPoolExecutor clears a worker's interrupt before its next task: look
			// right after execute
			this.interruptedAfter = Thread.interrupted();
			return raised;
		});
		assertThat(working.await(10, TimeUnit.SECONDS)).isTrue();
		String owner = this.template.activeLeases().get(0).owner();
		assertThat(this.template.forceRelease(owner)).isTrue();
		Throwable outcome = call.get(10, TimeUnit.SECONDS);
		boolean interrupted = this.interruptedAfter;
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(outcome)
			.as("what execute raised after an operator released its lease")
			.isInstanceOf(LockLostException.class);
		softly.assertThat(interrupted).as("the pooled thread is still interrupted after execute").isFalse();
		softly.assertAll();
	}

}
