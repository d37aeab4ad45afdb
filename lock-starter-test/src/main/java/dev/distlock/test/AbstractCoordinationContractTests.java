package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.core.LatchTemplate;
import dev.distlock.core.Lease;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.RenewalOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The coordination contract every backend passes beside the lock contract: hold-at-least
 * and multi-key locks, driven through {@link LockTemplate}'s one execution path, and the
 * countdown latch of {@link LatchTemplate}, each area a {@link Nested @Nested} group that
 * runs against the subclass's hooks. A backend's test extends this and supplies
 * {@link #createProvider()} and {@link #createLatchProvider()}; each call stands for
 * another process with its own backend client. Published in {@code lock-starter-test};
 * see docs/write-a-backend.md.
 *
 * @param <P> the type of provider the backend's test creates
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractCoordinationContractTests<P extends LockProvider<?>> {

	private static final Duration HOLD = Duration.ofSeconds(1);

	private static final int MULTI_KEY_ROUNDS = 1000;

	private final List<LockTemplate> templates = Collections.synchronizedList(new ArrayList<>());

	private final List<LockProvider<?>> providers = Collections.synchronizedList(new ArrayList<>());

	private final List<LatchProvider> latchProviders = Collections.synchronizedList(new ArrayList<>());

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/** Prefix unique to this test instance so runs never see each other's keys. */
	protected final String prefix = "cc:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	/**
	 * A new provider on the shared backend with a client of its own; each call stands for
	 * another process.
	 * @return the provider
	 */
	protected abstract P createProvider() throws Exception;

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
		try {
			return newProcess(createProvider());
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not create the provider under test", ex);
		}
	}

	private LockTemplate newProcess(LockProvider<?> provider) {
		this.providers.add(provider);
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
		this.latchProviders.forEach(LatchProvider::close);
		closeClients();
	}

	/**
	 * Closes the backend clients the providers were made with, after every template and
	 * provider is closed.
	 */
	protected void closeClients() throws Exception {
	}

	/**
	 * A new latch provider on the shared backend with a client of its own; each call
	 * stands for another process.
	 * @return the provider
	 */
	protected abstract LatchProvider createLatchProvider() throws Exception;

	/**
	 * How late after its expiry the backend may still show a latch.
	 * @return the grace
	 */
	protected Duration latchExpiryGrace() {
		return Duration.ofMillis(500);
	}

	protected LatchTemplate newLatchProcess() {
		try {
			LatchProvider provider = createLatchProvider();
			this.latchProviders.add(provider);
			return new LatchTemplate(provider, settings(), Duration.ofMinutes(1));
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not create the latch provider under test", ex);
		}
	}

	/**
	 * The case of {@code holdOutlivesAHolderThatStopsTalkingToTheBackend}: a holder that
	 * crashes at once keeps the lock for the rest of its hold. A backend whose holds end
	 * with the holder's session overrides it with what it guarantees instead.
	 */
	protected void assertHoldOutlivesAHolderThatStopsTalkingToTheBackend() throws Exception {
		Crashable crashable = new Crashable(createProvider());
		LockTemplate first = newProcess(crashable);
		LockTemplate second = newProcess();
		String key = key("crash");
		Duration hold = watchdogLease().multipliedBy(2);
		long requested = System.nanoTime();
		// no lease: the watchdog's lease is shorter than the hold, so the backend lease
		// must be the hold
		first.acquire(LockRequest.builder(key).holdAtLeast(hold).build());
		crashable.crash();
		try (Lease lease = second.acquire(LockRequest.builder(key).waitTime(hold.multipliedBy(3)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - requested))
				.as("when another process got the lock of a holder that crashed at once")
				.isGreaterThanOrEqualTo(hold)
				.isLessThan(hold.plus(watchdogLease().multipliedBy(2)));
		}
	}

	/**
	 * The executor of this test's background callers, stopped after each test.
	 * @return the executor
	 */
	protected ExecutorService executor() {
		return this.executor;
	}

	protected String key(String name) {
		return name + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * Hold-at-least: a lock released early stays taken until its hold ends, across
	 * processes and crashes.
	 */
	@Nested
	class HoldAtLeast {

		@Test
		void scheduledJobOfTwoInstancesRunsAtMostOncePerHold() throws Exception {
			List<LockTemplate> instances = List.of(newProcess(), newProcess());
			String key = key("job");
			LockRequest request = LockRequest.builder(key).waitTime(Duration.ZERO).holdAtLeast(HOLD).build();
			LockHistory history = new LockHistory();
			List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
			List<ScheduledExecutorService> schedulers = new ArrayList<>();
			try {
				for (int i = 0; i < instances.size(); i++) {
					LockTemplate instance = instances.get(i);
					String holder = "instance-" + i;
					ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
					schedulers.add(scheduler);
					// every 200 ms, the two instances 70 ms apart: a job of 10 ms is long
					// over when the other fires
					scheduler.scheduleAtFixedRate(() -> runJob(instance, request, history, holder, errors), i * 70L,
							200, TimeUnit.MILLISECONDS);
				}
				Thread.sleep(10_000);
			}
			finally {
				for (ScheduledExecutorService scheduler : schedulers) {
					scheduler.shutdown();
					assertThat(scheduler.awaitTermination(5, TimeUnit.SECONDS)).as("scheduler stopped").isTrue();
				}
			}
			assertThat(errors).as("errors of the job runs").isEmpty();
			List<LockHistory.Hold> runs = new ArrayList<>(history.holds());
			runs.sort(Comparator.comparingLong(LockHistory.Hold::start));
			assertThat(runs.size())
				.as("runs of a 10 ms job every 200 ms on two instances over 10 s, held at least 1 s: %s", runs)
				.isBetween(8, 11);
			for (int i = 1; i < runs.size(); i++) {
				long gap = runs.get(i).start() - runs.get(i - 1).requested();
				assertThat(Duration.ofNanos(gap)).as("time between run %d and run %d: %s", i - 1, i, runs)
					.isGreaterThanOrEqualTo(HOLD);
			}
			assertThat(runs).extracting(LockHistory.Hold::holder)
				.as("both instances ran the job")
				.contains("instance-0", "instance-1");
			history.assertConsistent();
		}

		private static void runJob(LockTemplate instance, LockRequest request, LockHistory history, String holder,
				List<Throwable> errors) {
			long requested = System.nanoTime();
			try {
				instance.execute(request, (lease) -> {
					long start = System.nanoTime();
					Thread.sleep(10);
					history.record(lease, 1, holder, requested, start, System.nanoTime());
					return null;
				}, (busy) -> null, null);
			}
			catch (Throwable ex) {
				errors.add(ex);
			}
		}

		@Test
		void lockReleasedBeforeItsHoldEndsStaysTakenUntilThen() throws Exception {
			LockTemplate first = newProcess();
			LockTemplate second = newProcess();
			String key = key("hold");
			long requested = System.nanoTime();
			first.acquire(LockRequest.builder(key).holdAtLeast(HOLD).build()).release();
			assertThat(second.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()))
				.as("another process, right after the release")
				.isEmpty();
			assertThat(first.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()))
				.as("the releasing process itself, which forgot its lease")
				.isEmpty();
			try (Lease lease = second.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build())) {
				Duration after = Duration.ofNanos(System.nanoTime() - requested);
				assertThat(after).as("when the waiting process got the lock")
					.isGreaterThanOrEqualTo(HOLD)
					.isLessThan(HOLD.plusMillis(1500));
				assertThat(lease.isValid()).isTrue();
			}
		}

		@Test
		void lockReleasedAfterItsHoldEndedIsFreeAtOnce() throws Exception {
			LockTemplate first = newProcess();
			LockTemplate second = newProcess();
			String key = key("held-long");
			Lease lease = first.acquire(LockRequest.builder(key).holdAtLeast(Duration.ofMillis(300)).build());
			Thread.sleep(400);
			lease.release();
			try (Lease next = second.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build())
				.orElseThrow(() -> new AssertionError("the lock was still taken after a release past its hold"))) {
				assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
			}
		}

		@Test
		void holdOutlivesAHolderThatStopsTalkingToTheBackend() throws Exception {
			assertHoldOutlivesAHolderThatStopsTalkingToTheBackend();
		}

	}

	/**
	 * An extension that raises the hold, and what it refuses.
	 */
	@Nested
	class ExtendWithHold {

		@Test
		void extensionWithAHoldKeepsTheLockTakenUntilTheHoldEndsAfterAnEarlyRelease() throws Exception {
			LockTemplate first = newProcess();
			LockTemplate second = newProcess();
			String key = key("extend-hold");
			LockRequest probe = LockRequest.builder(key).waitTime(Duration.ZERO).build();
			Lease lease = first.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(10)).build());
			assertThatExceptionOfType(LockConfigurationException.class)
				.as("a hold longer than the new lease, which would free the lock before the hold ends")
				.isThrownBy(() -> lease.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)));
			long extended = System.nanoTime();
			lease.extend(Duration.ofSeconds(10), HOLD);
			lease.release();
			assertThat(second.tryAcquire(probe)).as("another process, right after the release within the hold")
				.isEmpty();
			try (Lease next = second.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build())) {
				assertThat(Duration.ofNanos(System.nanoTime() - extended)).as("when the waiting process got the lock")
					.isGreaterThanOrEqualTo(HOLD)
					.isLessThan(HOLD.plusMillis(1500));
				assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
			}
			Lease released = first.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(10)).build());
			released.release();
			assertThatExceptionOfType(LockLostException.class).as("extending a released lease")
				.isThrownBy(() -> released.extend(Duration.ofSeconds(10), HOLD));
			try (Lease free = second.tryAcquire(probe)
				.orElseThrow(() -> new AssertionError("a failed extension of a released lease held the lock"))) {
				assertThat(free.isValid()).isTrue();
			}
		}

	}

	/**
	 * Multi-key locks: all keys or none, in one order whatever the caller's, each with
	 * its own fencing token.
	 */
	@Nested
	class MultiKey {

		@Test
		void callersTakingOverlappingKeySetsInOppositeOrderNeverDeadlockNorOverlap() throws Exception {
			List<LockTemplate> processes = List.of(newProcess(), newProcess());
			String a = key("a");
			String b = key("b");
			List<List<String>> orders = List.of(List.of(a, b), List.of(b, a));
			LockHistory history = new LockHistory();
			List<Future<?>> callers = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				LockTemplate process = processes.get(i);
				LockRequest request = LockRequest.builder(orders.get(i)).waitTime(Duration.ofSeconds(20)).build();
				String holder = "caller-" + i;
				callers.add(executor().submit(() -> {
					for (int n = 0; n < MULTI_KEY_ROUNDS; n++) {
						long requested = System.nanoTime();
						try (Lease lease = process.acquire(request)) {
							long start = System.nanoTime();
							for (String key : request.keys()) {
								history.record(new LockHistory.Hold(key, LockType.MUTEX, 1, lease.fencingToken(key),
										holder, requested, start, System.nanoTime()));
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> caller : callers) {
				caller.get(100, TimeUnit.SECONDS);
			}
			assertThat(history.size()).isEqualTo(2 * MULTI_KEY_ROUNDS * 2);
			history.assertConsistent();
		}

		@Test
		void busyKeyFailsTheWholeAcquisitionWithNothingHeld() throws Exception {
			LockTemplate first = newProcess();
			LockTemplate second = newProcess();
			String a = key("a");
			String b = key("b");
			String c = key("c");
			try (Lease busy = second.acquire(LockRequest.of(b))) {
				long start = System.nanoTime();
				// a hold-at-least must not keep the keys given back
				assertThat(first.tryAcquire(LockRequest.builder(List.of(c, b, a))
					.waitTime(Duration.ofMillis(300))
					.holdAtLeast(Duration.ofSeconds(5))
					.build())).as("keys [a, b, c] with b held elsewhere").isEmpty();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to give up")
					.isGreaterThanOrEqualTo(Duration.ofMillis(300))
					.isLessThan(Duration.ofSeconds(3));
				for (String key : List.of(a, c)) {
					try (Lease lease = second.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build())
						.orElseThrow(() -> new AssertionError(key + " stayed held after the acquisition failed"))) {
						assertThat(lease.isValid()).isTrue();
					}
				}
				assertThat(busy.isValid()).isTrue();
			}
			try (Lease all = first.acquire(LockRequest.builder(List.of(a, b, c)).waitTime(Duration.ZERO).build())) {
				assertThat(all.isValid()).as("every key, once free").isTrue();
			}
		}

		@Test
		void everyKeyHasItsOwnRisingFencingToken() throws Exception {
			LockTemplate first = newProcess();
			LockTemplate second = newProcess();
			String x = key("x");
			String y = key("y");
			long tokenOfX;
			try (Lease lease = first.acquire(LockRequest.builder(List.of(y, x, y)).build())) {
				assertThat(lease.key()).isEqualTo(String.join(",", new java.util.TreeSet<>(List.of(x, y))));
				assertThat(lease.isValid()).isTrue();
				tokenOfX = lease.fencingToken(x);
				assertThat(tokenOfX).isPositive();
				assertThat(lease.fencingToken(y)).isPositive();
				assertThatExceptionOfType(IllegalStateException.class).isThrownBy(lease::fencingToken)
					.withMessageContaining("fencingToken(key)");
				assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> lease.fencingToken("z"))
					.withMessageContaining("'z' is not one of the keys");
				assertThat(second.tryAcquire(LockRequest.builder(x).waitTime(Duration.ZERO).build())).isEmpty();
				assertThat(second.tryAcquire(LockRequest.builder(y).waitTime(Duration.ZERO).build())).isEmpty();
			}
			try (Lease again = second.acquire(LockRequest.builder(x).waitTime(Duration.ZERO).build())) {
				assertThat(again.fencingToken()).as("token of x after the multi-key lease").isGreaterThan(tokenOfX);
				assertThat(again.fencingToken(x)).isEqualTo(again.fencingToken());
			}
		}

		@Test
		void keyFreedWithinTheWaitIsTakenWithTheOthers() throws Exception {
			LockTemplate first = newProcess();
			LockTemplate second = newProcess();
			String a = key("a");
			String b = key("b");
			Lease busy = second.acquire(LockRequest.of(b));
			executor().submit(() -> {
				Thread.sleep(300);
				busy.release();
				return null;
			});
			try (Lease both = first
				.acquire(LockRequest.builder(List.of(a, b)).waitTime(Duration.ofSeconds(5)).build())) {
				assertThat(both.isValid()).isTrue();
				assertThat(busy.isValid()).isFalse();
				assertThat(second.tryAcquire(LockRequest.builder(a).waitTime(Duration.ZERO).build())).isEmpty();
			}
		}

		@Test
		void multiKeyHoldKeepsEveryKey() throws Exception {
			LockTemplate first = newProcess();
			LockTemplate second = newProcess();
			String a = key("a");
			String b = key("b");
			first.acquire(LockRequest.builder(List.of(a, b)).holdAtLeast(Duration.ofSeconds(2)).build()).release();
			assertThat(second.tryAcquire(LockRequest.builder(a).waitTime(Duration.ZERO).build())).isEmpty();
			assertThat(second.tryAcquire(LockRequest.builder(b).waitTime(Duration.ZERO).build())).isEmpty();
		}

		@Test
		void sameThreadReentersKeysItHoldsWithinAMultiKeyLock() throws Exception {
			LockTemplate process = newProcess();
			LockTemplate other = newProcess();
			String a = key("a");
			String b = key("b");
			try (Lease outer = process.acquire(LockRequest.of(a))) {
				try (Lease both = process.acquire(LockRequest.builder(List.of(a, b)).waitTime(Duration.ZERO).build())) {
					assertThat(both.fencingToken(a)).isEqualTo(outer.fencingToken());
				}
				assertThat(outer.isValid()).as("the outer hold of a after the multi-key lease ended").isTrue();
				assertThat(other.tryAcquire(LockRequest.builder(a).waitTime(Duration.ZERO).build())).isEmpty();
				try (Lease freed = other.tryAcquire(LockRequest.builder(b).waitTime(Duration.ZERO).build())
					.orElseThrow(() -> new AssertionError("b stayed held after the multi-key lease ended"))) {
					assertThat(freed.isValid()).isTrue();
				}
			}
		}

	}

	/**
	 * The countdown latch, counted down and awaited from several processes.
	 */
	@Nested
	class CountdownLatch {

		@Test
		void latchCountedDownByOtherProcessesWakesWaitersEverywhere() throws Exception {
			LatchTemplate setter = newLatchProcess();
			List<LatchTemplate> others = List.of(newLatchProcess(), newLatchProcess());
			String latch = key("latch");
			assertThat(setter.trySetCount(latch, 3)).as("first set").isTrue();
			assertThat(others.get(0).trySetCount(latch, 5)).as("set again while it exists").isFalse();
			assertThat(others.get(1).count(latch)).isEqualTo(3);
			List<Future<Long>> waiters = new ArrayList<>();
			for (LatchTemplate waiter : List.of(setter, others.get(0), others.get(1))) {
				waiters.add(executor().submit(() -> {
					assertThat(waiter.await(latch, Duration.ofSeconds(20))).as("await").isTrue();
					return System.nanoTime();
				}));
			}
			Thread.sleep(200);
			others.get(0).countDown(latch);
			others.get(1).countDown(latch);
			assertThat(setter.count(latch)).isEqualTo(1);
			assertThat(waiters).noneMatch(Future::isDone);
			long last = System.nanoTime();
			setter.countDown(latch);
			for (Future<Long> waiter : waiters) {
				assertThat(Duration.ofNanos(waiter.get(10, TimeUnit.SECONDS) - last))
					.as("waiter woken after the count-down")
					.isLessThan(Duration.ofSeconds(1));
			}
			assertThat(others.get(1).count(latch)).isZero();
		}

		@Test
		void awaitGivesUpAtItsTimeoutWhileTheCountIsAboveZero() throws Exception {
			LatchTemplate process = newLatchProcess();
			String latch = key("latch-timeout");
			process.trySetCount(latch, 2);
			process.countDown(latch);
			long start = System.nanoTime();
			assertThat(process.await(latch, Duration.ofMillis(300))).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300))
				.isLessThan(Duration.ofSeconds(3));
			assertThat(process.count(latch)).isEqualTo(1);
			assertThat(process.await(latch, Duration.ZERO)).as("a zero wait checks once").isFalse();
		}

		@Test
		void absentLatchCountsZeroAndIsSetAgainOnceAtZero() throws Exception {
			LatchTemplate process = newLatchProcess();
			LatchTemplate other = newLatchProcess();
			String latch = key("latch-absent");
			assertThat(process.count(latch)).isZero();
			assertThat(process.await(latch, Duration.ZERO)).isTrue();
			other.countDown(latch);
			assertThat(process.count(latch)).as("a count-down of an absent latch does not create it").isZero();
			assertThat(process.trySetCount(latch, 1)).isTrue();
			other.countDown(latch);
			other.countDown(latch);
			assertThat(process.count(latch)).as("never below zero").isZero();
			assertThat(other.trySetCount(latch, 2)).as("set again after it reached zero").isTrue();
			assertThat(process.count(latch)).isEqualTo(2);
		}

		@Test
		void concurrentCountDownsFromTwoProcessesLoseNone() throws Exception {
			List<LatchTemplate> processes = List.of(newLatchProcess(), newLatchProcess());
			String latch = key("latch-many");
			processes.get(0).trySetCount(latch, 100);
			Future<Boolean> waiter = executor().submit(() -> processes.get(1).await(latch, Duration.ofSeconds(30)));
			List<Future<?>> counters = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				LatchTemplate process = processes.get(t % 2);
				counters.add(executor().submit(() -> {
					for (int i = 0; i < 24; i++) {
						process.countDown(latch);
					}
					return null;
				}));
			}
			for (Future<?> counter : counters) {
				counter.get(30, TimeUnit.SECONDS);
			}
			assertThat(processes.get(0).count(latch)).as("100 - 4 x 24").isEqualTo(4);
			assertThat(waiter.isDone()).isFalse();
			for (int i = 0; i < 4; i++) {
				processes.get(i % 2).countDown(latch);
			}
			assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
		}

		@Test
		void latchExpiresAfterItsExpiry() throws Exception {
			LatchTemplate process = newLatchProcess();
			String latch = key("latch-expiry");
			Duration expiry = Duration.ofSeconds(1);
			assertThat(process.trySetCount(latch, 5, expiry)).isTrue();
			Thread.sleep(expiry.toMillis() / 2);
			assertThat(process.count(latch)).as("before its expiry").isEqualTo(5);
			long deadline = System.nanoTime() + expiry.plus(latchExpiryGrace()).toNanos();
			while (process.count(latch) != 0) {
				assertThat(System.nanoTime()).as("latch still there %s after its expiry", latchExpiryGrace())
					.isLessThan(deadline);
				Thread.sleep(50);
			}
			assertThat(process.trySetCount(latch, 1)).as("set again once expired").isTrue();
		}

		@Test
		void badLatchInputIsRefusedByName() {
			LatchTemplate process = newLatchProcess();
			assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> process.trySetCount("l", 0))
				.withMessageContaining("Count of latch 'l' must be at least 1");
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> process.trySetCount("l", 1, Duration.ZERO))
				.withMessageContaining("Expiry of latch 'l' must be positive");
			assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> process.count(" "))
				.withMessageContaining("Latch name must not be null or blank");
		}

	}

	/**
	 * A provider whose process "crashes": from then on nothing reaches the backend, no
	 * renewal, no release.
	 */
	private static final class Crashable extends DelegatingLockProvider {

		private final AtomicBoolean crashed = new AtomicBoolean();

		Crashable(LockProvider<?> delegate) {
			super(delegate);
		}

		void crash() {
			this.crashed.set(true);
		}

		@Override
		public boolean renew(HeldLock lock, Duration lease) throws Exception {
			return this.crashed.get() || super.renew(lock, lease);
		}

		@Override
		public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
			if (this.crashed.get()) {
				RenewalOutcome[] renewed = new RenewalOutcome[locks.size()];
				java.util.Arrays.fill(renewed, RenewalOutcome.renewed());
				return renewed;
			}
			return super.renewAll(locks, lease);
		}

		@Override
		public void release(HeldLock lock) throws Exception {
			if (!this.crashed.get()) {
				super.release(lock);
			}
		}

	}

}
