package dev.distlock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockSettings.LeaseLostAction;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code distlock.on-lease-lost=interrupt} the interrupt is for the guarded work
 * only: once {@code execute} returned or threw, the thread that called it (a pooled one
 * here) is not interrupted, however close the loss came to the end of the work.
 */
class LeaseLostInterruptTests {

	private final ExecutorService pool = Executors.newSingleThreadExecutor();

	private LockTemplate template;

	@AfterEach
	void close() {
		this.pool.shutdownNow();
		if (this.template != null) {
			this.template.close();
		}
	}

	@Test
	void interruptOfALeaseRunningOutNeverReachesTheNextTaskOfThePooledThread() throws Exception {
		this.template = new LockTemplate(List.of(new LocalLockProvider()), "local",
				LockSettings.defaults()
					.withKeyPrefix("interrupt:")
					.withOnLeaseLost(LeaseLostAction.INTERRUPT)
					.withWatchdog(Duration.ofMillis(300), Duration.ofMillis(100)),
				List.of());
		List<String> leaks = new ArrayList<>();
		int lost = 0;
		for (int i = 0; i < 150; i++) {
			// work that ends around the lease's end: the loss lands just before, during
			// or just after the return
			long workNanos = TimeUnit.MILLISECONDS.toNanos(15)
					+ ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(20));
			LockRequest request = LockRequest.builder("key-" + i).lease(Duration.ofMillis(25)).build();
			// ThreadPoolExecutor clears a worker's interrupt before its next task: look
			// right after execute
			boolean[] result = this.pool.submit(() -> {
				boolean lostLease;
				try {
					this.template.execute(request, () -> spin(workNanos));
					lostLease = false;
				}
				catch (LockLostException ex) {
					lostLease = true;
				}
				return new boolean[] { lostLease, Thread.interrupted() };
			}).get(10, TimeUnit.SECONDS);
			boolean wasLost = result[0];
			boolean interrupted = result[1];
			lost += wasLost ? 1 : 0;
			if (interrupted) {
				leaks.add("call " + i + " (work " + TimeUnit.NANOSECONDS.toMicros(workNanos) + " us, "
						+ (wasLost ? "lost" : "not lost") + ")");
			}
		}
		assertThat(lost).as("calls whose lease ran out while they worked").isPositive();
		assertThat(leaks).as("calls after which the pooled thread was still interrupted").isEmpty();
	}

	/**
	 * Busy work that ignores interrupts and leaves the flag set, as careless code does.
	 */
	private static Object spin(long nanos) {
		long end = System.nanoTime() + nanos;
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
		return null;
	}

}
