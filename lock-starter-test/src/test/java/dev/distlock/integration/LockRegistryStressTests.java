package dev.distlock.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import org.springframework.integration.support.locks.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads of two processes share one registry lock object per key and process
 * (Spring Integration's usage: every thread calls {@code obtain(key)}), with time-to-live
 * leases that often run out while their thread works, watchdog leases beside them, and a
 * thread that interrupts the workers at random. Every hold is recorded (who, the fencing
 * token, from when its acquisition returned to just before its unlock) and the history
 * checked: two holds of a key overlap only where one of them had been lost before (its
 * unlock threw {@link ConcurrentModificationException}, and its hold is counted only up
 * to its lease's end), a hold that starts after another ended carries a greater token,
 * and at the end every key is free and no thread is left holding.
 */
@Timeout(180)
class LockRegistryStressTests {

	private static final int THREADS_PER_PROCESS = 4;

	private static final Duration RUN = Duration.ofSeconds(4);

	/** One recorded hold; {@code end} is cut to the lease's end if the hold was lost. */
	record Hold(String key, String holder, long token, long start, long end, boolean lost) {

	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("dev.distlock.integration.LockRegistryContexts#BACKENDS")
	void sharedLockObjectsKeepOneHolderPerKeyThroughLostLeasesAndInterrupts(String backend) throws Exception {
		try (LockRegistryContexts contexts = new LockRegistryContexts(backend)) {
			List<DistlockLockRegistry> processes = List.of(contexts.registry("first"), contexts.registry("second"));
			String prefix = "stress-" + UUID.randomUUID().toString().substring(0, 8) + "-";
			List<String> keys = List.of(prefix + "a", prefix + "b");
			Queue<Hold> history = new ConcurrentLinkedQueue<>();
			Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicInteger interrupts = new AtomicInteger();
			List<Thread> workers = new ArrayList<>();
			CountDownLatch started = new CountDownLatch(2 * THREADS_PER_PROCESS);
			for (int p = 0; p < processes.size(); p++) {
				for (int t = 0; t < THREADS_PER_PROCESS; t++) {
					DistlockLockRegistry registry = processes.get(p);
					String holder = "process-" + p + "/thread-" + t;
					Thread worker = new Thread(() -> {
						started.countDown();
						try {
							work(registry, keys, holder, history, running);
						}
						catch (Throwable ex) {
							failures.add(ex);
						}
					}, holder);
					workers.add(worker);
					worker.start();
				}
			}
			assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
			long until = System.nanoTime() + RUN.toNanos();
			while (System.nanoTime() < until) {
				Thread.sleep(ThreadLocalRandom.current().nextInt(20, 80));
				workers.get(ThreadLocalRandom.current().nextInt(workers.size())).interrupt();
				interrupts.incrementAndGet();
			}
			running.set(false);
			for (Thread worker : workers) {
				worker.join(TimeUnit.SECONDS.toMillis(60));
				assertThat(worker.isAlive()).as(worker.getName() + " still running").isFalse();
			}
			assertThat(failures).as("workers' unexpected exceptions").isEmpty();
			List<Hold> holds = new ArrayList<>(history);
			long lost = holds.stream().filter(Hold::lost).count();
			System.out.printf("%s: %d holds, %d lost, %d interrupts%n", backend, holds.size(), lost, interrupts.get());
			assertThat(holds).as("holds recorded").hasSizeGreaterThan(20);
			for (String key : keys) {
				check(holds.stream().filter((hold) -> hold.key().equals(key)).toList());
				// free at the end, in both processes
				for (DistlockLockRegistry registry : processes) {
					DistributedLock lock = registry.obtain(key);
					assertThat(lock.tryLock(10, TimeUnit.SECONDS)).as(key + " free after the run").isTrue();
					lock.unlock();
				}
			}
		}
	}

	private static void work(DistlockLockRegistry registry, List<String> keys, String holder, Queue<Hold> history,
			AtomicBoolean running) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (running.get()) {
			String key = keys.get(random.nextInt(keys.size()));
			DistributedLock lock = registry.obtain(key);
			boolean watchdog = random.nextInt(4) == 0;
			// a fixed lease that often runs out while its holder works
			Duration ttl = Duration.ofMillis(random.nextInt(150, 300));
			boolean acquired;
			try {
				acquired = watchdog ? lock.tryLock(500, TimeUnit.MILLISECONDS)
						: lock.tryLock(Duration.ofMillis(500), ttl);
			}
			catch (InterruptedException ex) {
				continue;
			}
			catch (LockAcquisitionException ex) {
				if (ex.getMessage() == null || !ex.getMessage().contains("granted after its lease")) {
					throw ex;
				}
				// a grant that came after its short lease ended: refused, nothing held
				continue;
			}
			if (!acquired) {
				continue;
			}
			long start = System.nanoTime();
			Lease lease = ((LeaseLock) lock).lease().orElseThrow();
			try {
				Thread.sleep(random.nextInt(0, 300));
			}
			catch (InterruptedException ex) {
				// an interrupt while working: the hold still ends with unlock()
			}
			long end = System.nanoTime();
			boolean lost = false;
			try {
				lock.unlock();
			}
			catch (ConcurrentModificationException ex) {
				lost = true;
				end = Math.min(end, nanos(lease.expiresAt()));
			}
			history.add(new Hold(key, holder, lease.fencingToken(), start, end, lost));
			Thread.interrupted();
		}
		Thread.interrupted();
	}

	/** The nano time of an instant, by the offset between the two clocks now. */
	private static long nanos(Instant instant) {
		long nanos = System.nanoTime();
		Instant now = Instant.now();
		return nanos + Duration.between(now, instant).toNanos();
	}

	private static void check(List<Hold> holds) {
		List<Hold> sorted = holds.stream().sorted(Comparator.comparingLong(Hold::start)).toList();
		for (int i = 0; i < sorted.size(); i++) {
			Hold earlier = sorted.get(i);
			for (int j = i + 1; j < sorted.size(); j++) {
				Hold later = sorted.get(j);
				if (later.start() < earlier.end()) {
					throw new AssertionError("Two holders at once: " + earlier + " and " + later);
				}
				if (later.token() <= earlier.token()) {
					throw new AssertionError("Token did not rise: " + earlier + " then " + later);
				}
			}
		}
	}

}
