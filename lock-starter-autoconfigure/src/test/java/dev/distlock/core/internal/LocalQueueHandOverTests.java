package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A local waiter that meets a place in the middle of a hand-over (taken by the next
 * holder, whose lease is not yet written to it) still takes the place over as soon as
 * that holder's lease runs out, instead of parking until its own deadline.
 */
@Timeout(60)
class LocalQueueHandOverTests {

	private static final String KEY = "hand-over";

	private final LocalQueue queue = new LocalQueue();

	@Test
	void aWaiterThatFindsNoHolderDuringAHandOverTakesOverOnceTheNextHolderRunsOut() throws Exception {
		TestHolder first = new TestHolder("first", Duration.ofMinutes(1));
		LocalQueue.Slot slot = this.queue.enter(first, KEY, LockType.MUTEX, deadline(Duration.ofSeconds(5)), false);
		assertThat(slot).as("the first holder's place").isNotNull();

		// the first holder's lease runs out; the next holder takes the place over the
		// way LocalQueue.enter does, and stops before it writes itself as the holder
		first.expiresNow();
		assertThat(slot.join()).isTrue();
		assertThat(slot.take(deadline(Duration.ofSeconds(5)), true)).as("the next holder takes the place over")
			.isTrue();
		assertThat(slot.takeDisplaced()).isSameAs(first);
		assertThat(slot.holder).as("holder during the hand-over").isNull();

		// a waiter arrives now and reads no holder
		TestHolder waiter = new TestHolder("waiter", Duration.ofMinutes(1));
		long waiterDeadline = deadline(Duration.ofSeconds(10));
		CompletableFuture<LocalQueue.Slot> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				return this.queue.enter(waiter, KEY, LockType.MUTEX, waiterDeadline, false);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		long queuedBy = deadline(Duration.ofSeconds(10));
		while (!slot.hasQueuedThreads() && System.nanoTime() - queuedBy < 0 && !waiting.isDone()) {
			Thread.onSpinWait();
		}
		assertThat(waiting).as("the waiter waits while the place is taken").isNotDone();

		// the hand-over completes: the next holder's fixed lease is short, and its work
		// outlasts it (it never releases)
		TestHolder next = new TestHolder("next", Duration.ofMillis(200));
		slot.holder = next;

		LocalQueue.Slot entered = waiting.get(30, TimeUnit.SECONDS);
		long enteredAt = System.nanoTime();
		assertThat(entered).as("the waiter's place").isSameAs(slot);
		assertThat(slot.takeDisplaced()).as("the holder the waiter displaced").isSameAs(next);
		assertThat(TimeUnit.NANOSECONDS.toMillis(enteredAt - next.expiryNanos()))
			.as("ms between the next holder's lease end and the waiter's take-over (its deadline was %d ms after)",
					TimeUnit.NANOSECONDS.toMillis(waiterDeadline - next.expiryNanos()))
			.isLessThan(5_000);
	}

	private static long deadline(Duration wait) {
		return System.nanoTime() + wait.toNanos();
	}

	/** A holder with a lease of its own clock that it never releases. */
	private static final class TestHolder implements LocalQueue.Holder {

		private final String name;

		private volatile long expiryNanos;

		TestHolder(String name, Duration lease) {
			this.name = name;
			this.expiryNanos = System.nanoTime() + lease.toNanos();
		}

		void expiresNow() {
			this.expiryNanos = System.nanoTime();
		}

		@Override
		public boolean isHeld() {
			return true;
		}

		@Override
		public long expiryNanos() {
			return this.expiryNanos;
		}

		@Override
		public void releaseBackendOrAwait() {
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

}
