package dev.distlock.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.Lease;
import dev.distlock.core.LockTemplate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads share one {@link LeaseLock} object; some holds have a fixed lease shorter
 * than their work, so leases run out mid-work and the next thread takes over, and an
 * interrupter thread interrupts workers at random. Every hold is recorded (thread, token,
 * from when to when, when its lease ran out, whether it was lost) and the history is
 * checked: two holds overlap only where the earlier one's lease had ended before the
 * later began, and tokens rise in grant order.
 */
@Timeout(180)
class LeaseLockStressTests {

	private static final int THREADS = 6;

	private static final int HOLDS_PER_THREAD = 12;

	/** Slack for the clocks of the lease and of the history to differ. */
	private static final long SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private static LeaseLockBackends backends;

	@BeforeAll
	static void startBackends() {
		backends = new LeaseLockBackends();
	}

	@AfterAll
	static void closeBackends() throws Exception {
		backends.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis", "redisson", "zookeeper" })
	void holdsOverlapOnlyAfterTheEarlierLeaseEndedAndTokensRiseInGrantOrder(String backend) throws Exception {
		LockTemplate template = backends.process(backend);
		StressLock lock = new StressLock(template, "stress-" + UUID.randomUUID().toString().substring(0, 8));
		List<Hold> history = new ArrayList<>();
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong interrupts = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
		List<Thread> workers = new ArrayList<>();
		List<Future<?>> futures = new ArrayList<>();
		try {
			for (int t = 0; t < THREADS; t++) {
				futures.add(pool.submit(() -> {
					synchronized (workers) {
						workers.add(Thread.currentThread());
					}
					work(lock, history);
					return null;
				}));
			}
			Future<?> interrupter = pool.submit(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				while (running.get()) {
					Thread.sleep(10 + random.nextInt(30));
					synchronized (workers) {
						if (!workers.isEmpty()) {
							workers.get(random.nextInt(workers.size())).interrupt();
							interrupts.incrementAndGet();
						}
					}
				}
				return null;
			});
			for (Future<?> future : futures) {
				future.get(150, TimeUnit.SECONDS);
			}
			running.set(false);
			interrupter.get(10, TimeUnit.SECONDS);
		}
		finally {
			running.set(false);
			pool.shutdownNow();
			pool.awaitTermination(10, TimeUnit.SECONDS);
		}
		List<Hold> holds;
		synchronized (history) {
			holds = new ArrayList<>(history);
		}
		holds.sort(Comparator.comparingLong(Hold::start));
		long lost = holds.stream().filter(Hold::lost).count();
		System.out.printf("%s: %d holds, %d lost, %d interrupts%n", backend, holds.size(), lost, interrupts.get());
		assertThat(holds).as("recorded holds").hasSizeGreaterThan(THREADS);
		assertThat(lost).as("holds whose lease ran out mid-work").isPositive();
		for (int i = 0; i < holds.size(); i++) {
			Hold earlier = holds.get(i);
			for (int j = i + 1; j < holds.size(); j++) {
				Hold later = holds.get(j);
				if (i + 1 == j) {
					assertThat(later.token()).as("token of %s granted after %s", later, earlier)
						.isGreaterThan(earlier.token());
				}
				if (later.start() < earlier.end()) {
					assertThat(earlier.lost() && earlier.expiry() - later.start() <= SLACK_NANOS)
						.as("%s overlaps %s, which was not lost (or whose lease had not ended) before it began", later,
								earlier)
						.isTrue();
				}
			}
		}
	}

	private static void work(StressLock lock, List<Hold> history) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int done = 0;
		while (done < HOLDS_PER_THREAD) {
			boolean shortLease = random.nextInt(3) == 0;
			Duration lease = shortLease ? Duration.ofMillis(150) : Duration.ofSeconds(20);
			boolean acquired;
			try {
				acquired = lock.tryLock(Duration.ofSeconds(30), lease);
			}
			catch (InterruptedException ex) {
				assertThat(Thread.currentThread().isInterrupted()).as("interrupt status after InterruptedException")
					.isFalse();
				continue;
			}
			if (!acquired) {
				continue;
			}
			long start = System.nanoTime();
			Lease held = lock.lease().orElseThrow();
			long expiry = start + Duration.between(Instant.now(), held.expiresAt()).toNanos();
			// the work, longer than a short lease for the holds that have one; an
			// interrupt
			// does not end it, and stays set for the unlock
			long workEnd = start
					+ TimeUnit.MILLISECONDS.toNanos(shortLease ? 200 + random.nextInt(100) : random.nextInt(20));
			boolean interrupted = false;
			for (long left = workEnd - System.nanoTime(); left > 0; left = workEnd - System.nanoTime()) {
				try {
					TimeUnit.NANOSECONDS.sleep(left);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			long end = System.nanoTime();
			boolean lost = !held.isValid();
			try {
				lock.unlock();
			}
			catch (IllegalStateException ex) {
				lost = true;
			}
			Thread.interrupted();
			synchronized (history) {
				history.add(new Hold(Thread.currentThread().getName(), held.fencingToken(), start, end,
						lost ? Math.min(expiry, end) : end, lost));
			}
			done++;
		}
	}

	/**
	 * One recorded hold; {@code expiry} is when its lease ended by its clock if it was
	 * lost, else its end.
	 */
	record Hold(String thread, long token, long start, long end, long expiry, boolean lost) {

		@Override
		public String toString() {
			return this.thread + "[token " + this.token + ", " + TimeUnit.NANOSECONDS.toMillis(this.end - this.start)
					+ " ms" + (this.lost ? ", lost" : "") + "]";
		}

	}

	/** A {@link LeaseLock} whose acquisitions choose their fixed lease. */
	static final class StressLock extends LeaseLock {

		StressLock(LockTemplate template, String key) {
			super(template, key);
		}

		boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
			return acquire(wait, lease);
		}

	}

}
