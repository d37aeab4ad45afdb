package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

/**
 * The provider contract every backend passes (and every SQL dialect): mutual exclusion
 * checked from a recorded history, re-entry without round trips, ownership, fencing,
 * leases, the watchdog, lost-lease reporting, waiting and local queueing, each area a
 * {@link Nested @Nested} group that runs against the subclass's hooks. A backend's test
 * extends this with three hooks, as ShedLock's provider tests do:
 * <ul>
 * <li>{@link #createProvider()}: a new provider on the shared backend; each call stands
 * for another process;</li>
 * <li>{@link #breakLock(String, LockType)}: removes a lock behind its holders'
 * backs;</li>
 * <li>{@link #shortLease()} (optional): the shortest fixed lease the backend honours
 * reliably.</li>
 * </ul>
 * Types a backend does not list are checked to be refused, never skipped. Published in
 * {@code lock-starter-test}; see docs/write-a-backend.md.
 *
 * @param <P> the type of provider the backend's test creates
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractLockProviderContractTests<P extends LockProvider<?>> {

	private final List<LockTemplate> templates = Collections.synchronizedList(new ArrayList<>());

	private final List<LockProvider<?>> providers = Collections.synchronizedList(new ArrayList<>());

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/** Prefix unique to this test instance so runs never see each other's keys. */
	protected final String prefix = "ct:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	/**
	 * A new provider on the shared backend; each call stands for another process.
	 * @return the provider
	 */
	protected abstract P createProvider() throws Exception;

	/**
	 * Removes a lock behind its holders' backs, as an operator, an eviction or a crash
	 * would.
	 * @param fullKey the key as the backend sees it (with {@link #prefix})
	 * @param type the lock type
	 */
	protected abstract void breakLock(String fullKey, LockType type) throws Exception;

	/**
	 * A short fixed lease the backend honours reliably.
	 * @return the lease
	 */
	protected Duration shortLease() {
		return Duration.ofMillis(800);
	}

	/**
	 * The watchdog lease used by these tests (short, so that a missed renewal shows
	 * quickly).
	 * @return the lease
	 */
	protected Duration watchdogLease() {
		return Duration.ofMillis(1500);
	}

	protected LockSettings settings() {
		return LockSettings.defaults()
			.withKeyPrefix(this.prefix)
			.withWatchdog(watchdogLease(), watchdogLease().dividedBy(3))
			.withBackoff(Duration.ofMillis(5), Duration.ofMillis(100), Duration.ofMillis(300));
	}

	/**
	 * A template over a new provider: another "process".
	 * @return the template
	 */
	protected LockTemplate newProcess() {
		return newProcess(newProvider());
	}

	private P newProvider() {
		try {
			P provider = createProvider();
			this.providers.add(provider);
			return provider;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not create the provider under test", ex);
		}
	}

	private LockTemplate newProcess(LockProvider<?> provider) {
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(), settings(), List.of());
		this.templates.add(template);
		return template;
	}

	@AfterEach
	void closeProcesses() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.templates.forEach(LockTemplate::close);
		this.providers.forEach(LockProvider::close);
	}

	protected String key(String name) {
		return name + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private boolean supports(LockTemplate process, LockType type) {
		return process.defaultProvider().supportedTypes().contains(type);
	}

	private void assertSupportedOrRefused(LockTemplate process, LockType type) {
		if (!supports(process, type)) {
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> process.acquire(request(key("refused"), type, Duration.ZERO)));
		}
	}

	private ExecutorService executor() {
		return this.executor;
	}

	private String fullKey(String key) {
		return this.prefix + key;
	}

	private static LockRequest request(String key, LockType type, Duration wait) {
		LockRequest.Builder builder = LockRequest.builder(key).type(type).waitTime(wait);
		if (type == LockType.SEMAPHORE) {
			builder.permits(1);
		}
		return builder.build();
	}

	private static Optional<Lease> tryOnce(LockTemplate process, String key, LockType type) {
		return process.tryAcquire(request(key, type, Duration.ZERO));
	}

	/**
	 * Every type is either granted with a fencing token or refused by name, never
	 * skipped.
	 */
	@Nested
	class EveryLockType {

		@ParameterizedTest
		@EnumSource(LockType.class)
		void everyTypeIsEitherGrantedWithATokenOrRefusedByName(LockType type) {
			LockTemplate process = newProcess();
			String key = key("type");
			if (!supports(process, type)) {
				assertThatExceptionOfType(LockConfigurationException.class)
					.isThrownBy(() -> process.acquire(request(key, type, Duration.ZERO)))
					.withMessageContaining(type.name());
				return;
			}
			try (Lease lease = process.acquire(request(key, type, Duration.ZERO))) {
				assertThat(lease.isValid()).isTrue();
				assertThat(lease.type()).isEqualTo(type);
				assertThat(lease.key()).isEqualTo(key);
				assertThat(lease.fencingToken()).isPositive();
			}
		}

	}

	/**
	 * Mutual exclusion, checked from a recorded history of who held what and when.
	 */
	@Nested
	class MutualExclusion {

		@ParameterizedTest
		@EnumSource(value = LockType.class, names = { "MUTEX", "FAIR", "WRITE" })
		void exclusiveTypesHaveOneHolderAcrossProcessesAndThreads(LockType type) throws Exception {
			LockTemplate first = newProcess();
			assertSupportedOrRefused(first, type);
			if (!supports(first, type)) {
				return;
			}
			LockTemplate second = newProcess();
			List<String> keys = List.of(key("x1"), key("x2"));
			LockHistory history = runWorkload(List.of(first, second), 3, 20, (random) -> type,
					(random) -> keys.get(random.nextInt(keys.size())), 1);
			assertThat(history.size()).isEqualTo(2 * 3 * 20);
			history.assertConsistent();
		}

		@Test
		void readersShareWritersExcludeUnderLoad() throws Exception {
			LockTemplate first = newProcess();
			if (!supports(first, LockType.READ) || !supports(first, LockType.WRITE)) {
				assertSupportedOrRefused(first, LockType.READ);
				assertSupportedOrRefused(first, LockType.WRITE);
				return;
			}
			LockTemplate second = newProcess();
			String key = key("rw");
			LockHistory history = runWorkload(List.of(first, second), 3, 20,
					(random) -> (random.nextInt(10) < 7) ? LockType.READ : LockType.WRITE, (random) -> key, 1);
			assertThat(history.size()).isEqualTo(2 * 3 * 20);
			history.assertConsistent();
		}

		@Test
		void semaphoreNeverExceedsItsPermitsUnderLoad() throws Exception {
			LockTemplate first = newProcess();
			if (!supports(first, LockType.SEMAPHORE)) {
				assertSupportedOrRefused(first, LockType.SEMAPHORE);
				return;
			}
			LockTemplate second = newProcess();
			String key = key("sem");
			LockHistory history = runWorkload(List.of(first, second), 4, 15, (random) -> LockType.SEMAPHORE,
					(random) -> key, 3);
			assertThat(history.size()).isEqualTo(2 * 4 * 15);
			history.assertConsistent();
		}

		interface Choice<T> {

			T pick(ThreadLocalRandom random);

		}

		/**
		 * Runs threads in several processes, each acquiring and briefly holding locks,
		 * and records every hold.
		 */
		private LockHistory runWorkload(List<LockTemplate> processes, int threadsPerProcess, int opsPerThread,
				Choice<LockType> types, Choice<String> keys, int permits) throws Exception {
			LockHistory history = new LockHistory();
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (int p = 0; p < processes.size(); p++) {
				LockTemplate process = processes.get(p);
				for (int t = 0; t < threadsPerProcess; t++) {
					String holder = "p" + p + "t" + t;
					futures.add(executor().submit(() -> {
						start.await();
						ThreadLocalRandom random = ThreadLocalRandom.current();
						for (int op = 0; op < opsPerThread; op++) {
							LockType type = types.pick(random);
							LockRequest.Builder builder = LockRequest.builder(keys.pick(random))
								.type(type)
								.waitTime(Duration.ofSeconds(30));
							if (type == LockType.SEMAPHORE) {
								builder.permits(permits);
							}
							long requested = System.nanoTime();
							Lease lease = process.acquire(builder.build());
							long begin = System.nanoTime();
							try {
								// hold long enough for others to try to get in
								Thread.sleep(random.nextInt(3));
							}
							finally {
								long end = System.nanoTime();
								history.record(lease, permits, holder, requested, begin, end);
								lease.release();
							}
						}
						return null;
					}));
				}
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(90, TimeUnit.SECONDS);
			}
			return history;
		}

	}

	/**
	 * Readers share, writers exclude, a semaphore grants exactly its permits: checked
	 * directly.
	 */
	@Nested
	class SharingAndPermits {

		@Test
		void readersShareWithReadersOnly() {
			LockTemplate a = newProcess();
			if (!supports(a, LockType.READ) || !supports(a, LockType.WRITE)) {
				assertSupportedOrRefused(a, LockType.READ);
				assertSupportedOrRefused(a, LockType.WRITE);
				return;
			}
			LockTemplate b = newProcess();
			String key = key("share");
			Lease readerA = a.acquire(request(key, LockType.READ, Duration.ZERO));
			Lease readerB = b.acquire(request(key, LockType.READ, Duration.ZERO));
			assertThat(tryOnce(b, key, LockType.WRITE)).as("writer while two readers hold").isEmpty();
			readerA.release();
			assertThat(tryOnce(a, key, LockType.WRITE)).as("writer while one reader holds").isEmpty();
			readerB.release();
			Lease writer = a.acquire(request(key, LockType.WRITE, Duration.ofSeconds(5)));
			assertThat(tryOnce(b, key, LockType.READ)).as("reader while a writer holds").isEmpty();
			assertThat(tryOnce(b, key, LockType.WRITE)).as("second writer").isEmpty();
			writer.release();
			b.acquire(request(key, LockType.READ, Duration.ofSeconds(5))).release();
		}

		@Test
		void semaphoreGrantsExactlyItsPermits() {
			LockTemplate a = newProcess();
			if (!supports(a, LockType.SEMAPHORE)) {
				assertSupportedOrRefused(a, LockType.SEMAPHORE);
				return;
			}
			LockTemplate b = newProcess();
			String key = key("permits");
			LockRequest request = LockRequest.builder(key)
				.type(LockType.SEMAPHORE)
				.permits(3)
				.waitTime(Duration.ZERO)
				.build();
			Lease one = a.acquire(request);
			Lease two = b.acquire(request);
			Lease three = a.acquire(request);
			assertThat(b.tryAcquire(request)).as("fourth permit of three").isEmpty();
			two.release();
			Lease four = b.acquire(request);
			assertThat(List.of(one, three, four)).allMatch(Lease::isValid);
			assertThat(a.tryAcquire(request)).as("fourth permit of three after a release and re-take").isEmpty();
			List.of(one, three, four).forEach(Lease::release);
		}

	}

	/**
	 * Waiting: zero waits, deadlines, wake-ups, and local threads queueing before the
	 * backend.
	 */
	@Nested
	class Waiting {

		@ParameterizedTest
		@EnumSource(LockType.class)
		void zeroWaitFailsFastWhenHeld(LockType type) {
			LockTemplate a = newProcess();
			if (!supports(a, type)) {
				assertSupportedOrRefused(a, type);
				return;
			}
			LockTemplate b = newProcess();
			String key = key("zero");
			// READ is blocked by a writer, the others by a holder of their own type
			LockType holderType = (type == LockType.READ) ? LockType.WRITE : type;
			if (!supports(a, holderType)) {
				return;
			}
			try (Lease held = a.acquire(request(key, holderType, Duration.ZERO))) {
				long start = System.nanoTime();
				assertThat(tryOnce(b, key, type)).isEmpty();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a single attempt")
					.isLessThan(Duration.ofSeconds(2));
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> b.acquire(request(key, type, Duration.ZERO)))
					.withMessageContaining(key)
					.satisfies((ex) -> assertThat(ex.isTimeout()).isTrue());
				assertThat(held.isValid()).isTrue();
			}
		}

		@Test
		void waitDeadlineIsHonoured() {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("deadline");
			try (Lease held = a.acquire(LockRequest.of(key))) {
				long start = System.nanoTime();
				Optional<Lease> none = b.tryAcquire(LockRequest.builder(key).waitTime(Duration.ofMillis(700)).build());
				Duration waited = Duration.ofNanos(System.nanoTime() - start);
				assertThat(none).isEmpty();
				assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(650)).isLessThan(Duration.ofSeconds(5));
				assertThat(held.isValid()).isTrue();
			}
		}

		@Test
		void waiterIsWokenWhenTheHolderReleases() throws Exception {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("wake");
			Lease held = a.acquire(LockRequest.of(key));
			Future<Lease> waiter = executor()
				.submit(() -> b.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(20)).build()));
			Thread.sleep(300);
			assertThat(waiter.isDone()).as("waiter must block while the lock is held").isFalse();
			long released = System.nanoTime();
			held.release();
			Lease next = waiter.get(10, TimeUnit.SECONDS);
			Duration handoff = Duration.ofNanos(System.nanoTime() - released);
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			assertThat(handoff).as("hand-off after release").isLessThan(Duration.ofSeconds(3));
			next.release();
		}

		@Test
		void leaseIsMeasuredFromTheGrantNotFromTheStartOfTheWait() throws Exception {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("longwait");
			Lease held = a.acquire(LockRequest.of(key));
			Future<Lease> waiter = executor().submit(() -> b
				.acquire(LockRequest.builder(key).lease(shortLease()).waitTime(Duration.ofSeconds(20)).build()));
			Thread.sleep(shortLease().multipliedBy(2).toMillis());
			held.release();
			Lease next = waiter.get(10, TimeUnit.SECONDS);
			assertThat(next.isValid()).as("a lease granted after a wait longer than itself is still valid").isTrue();
			assertThat(next.expiresAt()).isAfter(java.time.Instant.now());
			next.release();
		}

		@Test
		void localThreadsQueueSoOnlyOneTalksToTheBackend() throws Exception {
			CountingLockProvider counting = new CountingLockProvider(newProvider());
			LockTemplate process = newProcess(counting);
			String key = key("queue");
			Lease held = process.acquire(LockRequest.of(key));
			List<Future<Long>> waiters = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				waiters.add(executor().submit(() -> {
					try (Lease lease = process
						.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(20)).build())) {
						return lease.fencingToken();
					}
				}));
			}
			Thread.sleep(300);
			assertThat(counting.inFlight.get()).as("local waiters must queue before the backend").isZero();
			held.release();
			for (Future<Long> waiter : waiters) {
				assertThat(waiter.get(20, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
			}
			assertThat(counting.maxInFlight.get()).isEqualTo(1);
			assertThat(counting.acquires.get()).isEqualTo(5);
		}

	}

	/**
	 * Re-entry by the holding thread, without a backend round trip.
	 */
	@Nested
	class Reentry {

		@ParameterizedTest
		@EnumSource(value = LockType.class, names = { "MUTEX", "FAIR", "READ", "WRITE" })
		void reentryByTheHoldingThreadCostsNoRoundTrip(LockType type) {
			CountingLockProvider counting = new CountingLockProvider(newProvider());
			LockTemplate process = newProcess(counting);
			if (!supports(process, type)) {
				assertSupportedOrRefused(process, type);
				return;
			}
			LockTemplate other = newProcess();
			String key = key("reentry");
			LockType blocker = (type == LockType.READ) ? LockType.WRITE : type;
			Lease outer = process.acquire(request(key, type, Duration.ZERO));
			Lease inner = process.acquire(request(key, type, Duration.ZERO));
			Lease innermost = process.acquire(request(key, type, Duration.ZERO));
			assertThat(counting.acquires.get()).as("backend acquisitions").isEqualTo(1);
			assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			innermost.release();
			inner.release();
			inner.release();
			assertThat(counting.releases.get()).as("inner releases reach the backend").isZero();
			if (supports(other, blocker)) {
				assertThat(tryOnce(other, key, blocker)).as("held until the outermost release").isEmpty();
			}
			outer.release();
			assertThat(counting.releases.get()).isEqualTo(1);
			if (supports(other, blocker)) {
				tryOnce(other, key, blocker).orElseThrow(() -> new AssertionError("free after the outermost release"))
					.release();
			}
		}

		@Test
		void anotherThreadDoesNotReenter() throws Exception {
			LockTemplate process = newProcess();
			String key = key("notreentrant");
			try (Lease held = process.acquire(LockRequest.of(key))) {
				Future<Optional<Lease>> other = executor()
					.submit(() -> process.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()));
				assertThat(other.get(5, TimeUnit.SECONDS)).isEmpty();
				assertThat(held.isValid()).isTrue();
			}
		}

	}

	/**
	 * Ownership: a lease is released from any thread, and a stale release touches
	 * nothing.
	 */
	@Nested
	class Ownership {

		@Test
		void leaseIsReleasedFromAnotherThread() throws Exception {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("async");
			Lease lease = executor().submit(() -> a.acquire(LockRequest.of(key))).get(10, TimeUnit.SECONDS);
			assertThat(tryOnce(b, key, LockType.MUTEX)).isEmpty();
			executor().submit(lease::release).get(10, TimeUnit.SECONDS);
			assertThat(lease.isValid()).isFalse();
			tryOnce(b, key, LockType.MUTEX).orElseThrow(() -> new AssertionError("released from another thread"))
				.release();
		}

		/**
		 * Cancellation interrupts threads (a disposed subscription's worker,
		 * {@code Future.cancel(true)}, an executor's {@code shutdownNow},
		 * {@code distlock.on-lease-lost=interrupt}): a release such a thread makes still
		 * frees the key, long before its 30 s lease would, and the thread keeps its
		 * interrupt.
		 */
		@Test
		void leaseReleasedByAnInterruptedThreadFreesTheKeyAndKeepsTheInterrupt() throws Exception {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("interrupted");
			Lease lease = a.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(30)).build());
			boolean kept = executor().submit(() -> {
				Thread.currentThread().interrupt();
				lease.release();
				return Thread.interrupted();
			}).get(10, TimeUnit.SECONDS);
			assertThat(kept).as("the releasing thread's interrupt, kept").isTrue();
			assertThat(lease.isValid()).isFalse();
			Optional<Lease> next = b.tryAcquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build());
			assertThat(next).as("another process, right after the interrupted thread's release").isPresent();
			next.get().release();
		}

		@ParameterizedTest
		@EnumSource(LockType.class)
		void expiredLeaseFreesTheKeyAndItsStaleReleaseTouchesNothing(LockType type) throws Exception {
			LockTemplate a = newProcess();
			if (!supports(a, type)) {
				assertSupportedOrRefused(a, type);
				return;
			}
			LockTemplate b = newProcess();
			String key = key("expiry");
			LockType successorType = (type == LockType.READ) ? LockType.WRITE : type;
			if (!supports(b, successorType)) {
				return;
			}
			CountDownLatch lost = new CountDownLatch(1);
			Lease stale = a
				.acquire(LockRequest.builder(key).type(type).lease(shortLease()).waitTime(Duration.ZERO).build());
			stale.onLost(lost::countDown);
			Lease successor = b
				.acquire(LockRequest.builder(key).type(successorType).waitTime(shortLease().multipliedBy(10)).build());
			assertThat(successor.fencingToken()).isGreaterThan(stale.fencingToken());
			assertThat(lost.await(5, TimeUnit.SECONDS)).as("expiry reported through onLost").isTrue();
			assertThat(stale.isValid()).isFalse();
			stale.release();
			assertThat(successor.isValid()).isTrue();
			assertThat(tryOnce(newProcess(), key, successorType)).as("stale release must not free the successor")
				.isEmpty();
			successor.release();
		}

	}

	/**
	 * Leases kept past their length by the watchdog or moved by an extension.
	 */
	@Nested
	class Leases {

		@Test
		void watchdogKeepsTheLockPastItsLease() throws Exception {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("watchdog");
			Lease lease = a.acquire(LockRequest.of(key));
			Thread.sleep(watchdogLease().multipliedBy(2).toMillis());
			assertThat(lease.isValid()).isTrue();
			assertThat(tryOnce(b, key, LockType.MUTEX)).as("held past its lease by renewal").isEmpty();
			lease.release();
			tryOnce(b, key, LockType.MUTEX).orElseThrow(() -> new AssertionError("free after release")).release();
		}

		@Test
		void extendMovesTheLeaseEnd() throws Exception {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("extend");
			Lease lease = a.acquire(LockRequest.builder(key).lease(shortLease()).build());
			lease.extend(shortLease().multipliedBy(4));
			Thread.sleep(shortLease().multipliedBy(2).toMillis());
			assertThat(lease.isValid()).isTrue();
			assertThat(tryOnce(b, key, LockType.MUTEX)).as("held past its first lease").isEmpty();
			lease.release();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(1)));
		}

	}

	/**
	 * A lease that ends without a release: expiry, refused renewals and extensions, loss
	 * reporting.
	 */
	@Nested
	class LeaseEndingWithoutRelease {

		/**
		 * The lease of a forgotten lock in
		 * {@link #fixedLeaseNeverReleasedFreesTheLockForThisJvmWithinItsEndPlus100Ms}:
		 * 200 ms, or four times the backend's shortest lease if that is longer. A lease
		 * as short as a backend's minimum (50 ms on {@code redisson-quorum}, which asks
		 * every node) let a slow round on a busy build machine end the test's first
		 * acquisition: a quorum round that runs out of time reports the free key busy,
		 * and a grant whose reply comes after its lease ran out is refused
		 * ({@link LockAcquisitionException}).
		 */
		private Duration forgottenLease(LockTemplate process) {
			Duration fourMinimums = process.defaultProvider().minimumLease().multipliedBy(4);
			Duration floor = Duration.ofMillis(200);
			return (fourMinimums.compareTo(floor) > 0) ? fourMinimums : floor;
		}

		@Test
		void fixedLeaseNeverReleasedFreesTheLockForThisJvmWithinItsEndPlus100Ms() throws Exception {
			LockTemplate process = newProcess();
			String key = key("forgotten");
			Duration leaseLength = forgottenLease(process);
			LockRequest request = LockRequest.builder(key).lease(leaseLength).waitTime(Duration.ZERO).build();
			CountDownLatch lost = new CountDownLatch(1);
			// a wait, so that a quorum round that ran out of time on a busy machine is
			// tried again rather than reported busy
			Lease forgotten = process
				.acquire(LockRequest.builder(key).lease(leaseLength).waitTime(Duration.ofSeconds(5)).build());
			long granted = System.nanoTime();
			forgotten.onLost(lost::countDown);
			Future<Lease> next = executor().submit(() -> process.acquire(
					LockRequest.builder(key).lease(Duration.ofSeconds(5)).waitTime(Duration.ofSeconds(3)).build()));
			Lease successor = next.get(5, TimeUnit.SECONDS);
			Duration took = Duration.ofNanos(System.nanoTime() - granted);
			assertThat(took).as("another thread of this JVM gets the lock within the lease's end + 100 ms")
				.isLessThan(leaseLength.plusMillis(100));
			assertThat(successor.fencingToken()).isGreaterThan(forgotten.fencingToken());
			assertThat(lost.await(1, TimeUnit.SECONDS)).as("the forgotten lease reports lost").isTrue();
			assertThat(forgotten.isValid()).isFalse();
			successor.release();
			Thread.sleep(100);
			Optional<Lease> tryOnce = executor().submit(() -> process.tryAcquire(request)).get(5, TimeUnit.SECONDS);
			assertThat(tryOnce).as("a try-once caller after another forgotten lease's end").isPresent();
			Thread.sleep(leaseLength.plusMillis(50).toMillis());
			assertThat(executor().submit(() -> process.tryAcquire(request)).get(5, TimeUnit.SECONDS))
				.as("a try-once caller checks the holder's end too")
				.isPresent();
		}

		@Test
		void leaseExtendedAfterItsEndIsRefusedAndLeavesTheKeyFree() throws Exception {
			LockTemplate process = newProcess();
			String key = key("late-extend");
			Duration shortest = process.defaultProvider().minimumLease();
			if (shortest.compareTo(Duration.ofMillis(1)) > 0) {
				assertThatExceptionOfType(LockConfigurationException.class)
					.as("a lease below the backend's documented minimum is refused, not rounded")
					.isThrownBy(() -> process.acquire(LockRequest.builder(key).lease(Duration.ofMillis(1)).build()))
					.withMessageContaining(shortest.toString());
			}
			Lease lease;
			try {
				// a wait: at the shortest lease a quorum round on a busy machine can
				// run out of time before a majority answered; the backend then reports
				// the free key busy, and the core tries again within the wait
				lease = process
					.acquire(LockRequest.builder(key).lease(shortest).waitTime(Duration.ofSeconds(5)).build());
			}
			catch (LockAcquisitionException lateGrant) {
				// the reply took longer than so short a lease: the grant is refused at
				// once and released in the
				// background
				assertThat(lateGrant).hasMessageContaining("had run out");
				assertThat(freeWithin(process, key, Duration.ofSeconds(5)))
					.as("the key is free after a refused late grant")
					.isTrue();
				return;
			}
			Thread.sleep(50);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(10)));
			assertThat(freeWithin(process, key, Duration.ofSeconds(5)))
				.as("the key is free after the refused extension")
				.isTrue();
			lease.release();
		}

		private boolean freeWithin(LockTemplate process, String key, Duration timeout) throws Exception {
			long deadline = System.nanoTime() + timeout.toNanos();
			do {
				Optional<Lease> next = executor()
					.submit(() -> process.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()))
					.get(5, TimeUnit.SECONDS);
				if (next.isPresent()) {
					next.get().release();
					return true;
				}
				Thread.sleep(20);
			}
			while (System.nanoTime() < deadline);
			return false;
		}

		@Test
		void watchdogLeaseWhoseRenewalIsRefusedFreesTheLockForThisJvm() throws Exception {
			LockTemplate process = newProcess();
			String key = key("refused");
			CountDownLatch lost = new CountDownLatch(1);
			Lease held = process.acquire(LockRequest.of(key));
			long granted = System.nanoTime();
			held.onLost(lost::countDown);
			breakLock(fullKey(key), LockType.MUTEX);
			Lease next = executor().submit(
					() -> process.acquire(LockRequest.builder(key).waitTime(watchdogLease().multipliedBy(3)).build()))
				.get(20, TimeUnit.SECONDS);
			Duration took = Duration.ofNanos(System.nanoTime() - granted);
			assertThat(lost.await(1, TimeUnit.SECONDS)).as("the refused renewal marks the lease lost").isTrue();
			assertThat(took).as("the next caller in this JVM gets it within the lease's end + 100 ms")
				.isLessThan(watchdogLease().plusMillis(100));
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			next.release();
			held.release();
		}

		@Test
		void overrunningHoldersLateReleaseLeavesTheNewHolderInPlace() throws Exception {
			LockTemplate process = newProcess();
			LockTemplate other = newProcess();
			String key = key("overrun");
			Duration lease = Duration.ofMillis(200);
			Future<Lease> successor = executor().submit(() -> {
				Thread.sleep(50);
				return process.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build());
			});
			assertThatExceptionOfType(LockLostException.class).as("the overrunning execute still reports the loss")
				.isThrownBy(() -> process.execute(LockRequest.builder(key).lease(lease).waitTime(Duration.ZERO).build(),
						() -> {
							Thread.sleep(lease.multipliedBy(3).toMillis());
							return null;
						}));
			Lease next = successor.get(10, TimeUnit.SECONDS);
			assertThat(next.isValid()).as("the new holder keeps its lock after the late release").isTrue();
			assertThat(tryOnce(other, key, LockType.MUTEX)).as("still held by the new holder").isEmpty();
			assertThat(tryOnce(process, key, LockType.MUTEX)).as("and its place in this JVM's queue too").isEmpty();
			long token = next.fencingToken();
			next.release();
			Lease after = tryOnce(other, key, LockType.MUTEX)
				.orElseThrow(() -> new AssertionError("free after release"));
			assertThat(after.fencingToken()).isGreaterThan(token);
			after.release();
		}

		@Test
		void lostLeaseIsReported() throws Exception {
			LockTemplate a = newProcess();
			LockTemplate b = newProcess();
			String key = key("lost");
			CountDownLatch lost = new CountDownLatch(1);
			Lease lease = a.acquire(LockRequest.of(key));
			lease.onLost(lost::countDown);
			breakLock(fullKey(key), LockType.MUTEX);
			assertThat(lost.await(watchdogLease().multipliedBy(4).toMillis(), TimeUnit.MILLISECONDS))
				.as("loss seen by the watchdog")
				.isTrue();
			assertThat(lease.isValid()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> a.checkNotLost(lease));
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(1)));
			AtomicInteger late = new AtomicInteger();
			lease.onLost(late::incrementAndGet);
			assertThat(late.get()).as("callback added after the loss runs at once").isEqualTo(1);
			Lease next = b.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build());
			lease.release();
			assertThat(next.isValid()).isTrue();
			assertThat(tryOnce(newProcess(), key, LockType.MUTEX)).isEmpty();
			next.release();
		}

		@Test
		void executeRaisesLockLostWhenTheLeaseWasLostDuringTheWork() {
			LockTemplate a = newProcess();
			String key = key("executelost");
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> a.execute(key, () -> {
				Lease lease = dev.distlock.core.LockContext.currentLease();
				breakLock(fullKey(key), LockType.MUTEX);
				long deadline = System.nanoTime() + watchdogLease().multipliedBy(4).toNanos();
				while (lease.isValid() && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				return "done";
			})).withMessageContaining(key);
		}

	}

	/**
	 * Fencing tokens rise across processes.
	 */
	@Nested
	class Fencing {

		@ParameterizedTest
		@EnumSource(LockType.class)
		void fencingTokensIncreaseAcrossProcesses(LockType type) {
			LockTemplate a = newProcess();
			if (!supports(a, type)) {
				assertSupportedOrRefused(a, type);
				return;
			}
			LockTemplate b = newProcess();
			String key = key("fence");
			long previous = 0;
			for (int i = 0; i < 6; i++) {
				LockTemplate process = (i % 2 == 0) ? a : b;
				try (Lease lease = process.acquire(request(key, type, Duration.ofSeconds(5)))) {
					assertThat(lease.fencingToken()).as("token %d of %s", i, type).isGreaterThan(previous);
					previous = lease.fencingToken();
				}
			}
		}

	}

	/**
	 * Fair locks grant in arrival order.
	 */
	@Nested
	class Fairness {

		@Test
		void fairLockGrantsInArrivalOrderAcrossProcesses() throws Exception {
			LockTemplate holder = newProcess();
			if (!supports(holder, LockType.FAIR)) {
				assertSupportedOrRefused(holder, LockType.FAIR);
				return;
			}
			String key = key("fair");
			Lease held = holder.acquire(request(key, LockType.FAIR, Duration.ZERO));
			List<String> order = Collections.synchronizedList(new ArrayList<>());
			List<Future<?>> waiters = new ArrayList<>();
			for (String name : List.of("first", "second", "third")) {
				LockTemplate process = newProcess();
				waiters.add(executor().submit(() -> {
					try (Lease lease = process.acquire(request(key, LockType.FAIR, Duration.ofSeconds(30)))) {
						order.add(name);
						Thread.sleep(50);
					}
					return null;
				}));
				Thread.sleep(400);
			}
			held.release();
			for (Future<?> waiter : waiters) {
				waiter.get(40, TimeUnit.SECONDS);
			}
			assertThat(order).containsExactly("first", "second", "third");
		}

	}

	/**
	 * Fails the test with a message if the condition does not hold within the timeout.
	 */
	protected static void awaitTrue(String what, Duration timeout, java.util.function.BooleanSupplier condition)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				fail("Timed out after " + timeout + " waiting for: " + what);
			}
			Thread.sleep(10);
		}
	}

}
