package dev.distlock.annotation;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.CountingLockProvider;
import dev.distlock.test.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} in a real Spring context on the {@code local} backend: keys
 * from SpEL, re-entry, mutual exclusion proven by a recorded history, SKIP, fallback,
 * THROW, the lease inside the method, lost leases, asynchronous results and placeholders.
 */
@SpringBootTest(classes = DistributedLockAspectTests.Config.class,
		properties = { "distlock.watchdog.lease=2s", "test.lock.lease=7s", "test.lock.wait=0" })
@Timeout(60)
class DistributedLockAspectTests {

	@Autowired
	private Locked locked;

	@Autowired
	private Outer outer;

	@Autowired
	private LockTemplate lockTemplate;

	@Autowired
	private CountingLockProvider counting;

	@Autowired
	private ReleaseRecorder releases;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeEach
	void forgetCalls() {
		this.locked.calls().clear();
	}

	@AfterEach
	void noLeaseLeftBehind() {
		this.executor.shutdownNow();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.lockTemplate.activeLeases()).as("leases still held after the test")
				.isEmpty());
		assertThat(Config.BACKEND.liveLocks()).as("locks left in the backend").isZero();
	}

	@Test
	void beanIsProxied() {
		assertThat(AopUtils.isAopProxy(this.locked)).isTrue();
	}

	@Test
	void keyFromArgumentByName() {
		assertThat(this.locked.byName(new Order(42, new Customer("ann")))).isEqualTo("42");
	}

	@Test
	void keyFromArgumentByPosition() {
		assertThat(this.locked.byPosition("x-1", 7)).isEqualTo("x-1:7");
	}

	@Test
	void keyFromNestedProperty() {
		assertThat(this.locked.nested(new Order(1, new Customer("bob")))).isEqualTo("bob");
	}

	@Test
	void keyFromBean() {
		assertThat(this.locked.fromBean(9)).isEqualTo("order-9");
	}

	@Test
	void keyFromRootObject() {
		assertThat(this.locked.fromRoot()).isEqualTo("fromRoot");
	}

	@Test
	void nameAndKeyAreJoinedWithColon() {
		assertThat(this.locked.nameAndKey(5)).isEqualTo("invoice:5");
	}

	@Test
	void leaseIsNamedForMetricsByTheAnnotationNameOrClassAndMethod() {
		assertThat(this.locked.leaseName(7)).isEqualTo("invoice");
		assertThat(this.locked.unnamedLeaseName(7)).isEqualTo("Locked.unnamedLeaseName");
	}

	@Test
	void nameAloneIsTheKey() {
		assertThat(this.locked.nameOnly()).isEqualTo("nightly");
	}

	@Test
	void withoutNameAndKeyTheMethodIsTheKey() {
		assertThat(this.locked.noKey()).isEqualTo(Locked.class.getName() + ".noKey");
	}

	@Test
	void nestedAnnotatedCallsReenterWithOneBackendAcquire() {
		int before = this.counting.acquires.get();
		long[] tokens = this.outer.outer("re");
		assertThat(this.counting.acquires.get() - before).as("backend acquisitions for outer + inner").isEqualTo(1);
		assertThat(tokens[1]).as("inner call shares the outer acquisition's token").isEqualTo(tokens[0]);
		assertThat(this.lockTemplate.activeLeases()).isEmpty();
	}

	@Test
	void annotatedMethodExcludesOtherThreads() throws Exception {
		LockHistory history = new LockHistory();
		List<Future<?>> futures = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			futures.add(this.executor.submit(() -> {
				for (int i = 0; i < 25; i++) {
					String key = "mx-" + (i % 2);
					this.locked.guarded(key, System.nanoTime(), history);
				}
				return null;
			}));
		}
		for (Future<?> future : futures) {
			future.get(50, TimeUnit.SECONDS);
		}
		assertThat(history.size()).isEqualTo(100);
		history.assertConsistent();
		long overlappingRequests = history.holds()
			.stream()
			.filter((a) -> history.holds()
				.stream()
				.anyMatch((b) -> a != b && a.key().equals(b.key()) && b.requested() < a.start() && a.start() < b.end()))
			.count();
		assertThat(overlappingRequests).as("holds that had to wait for another (proves there was contention)")
			.isPositive();
	}

	@Test
	void skipReturnsEmptyResultsWhenBusy() throws Exception {
		Lease held = holdElsewhere("busy");
		try {
			assertThat(this.locked.skipObject("busy")).isNull();
			assertThat(this.locked.skipOptional("busy")).isEmpty();
			CompletableFuture<String> future = this.locked.skipFuture("busy");
			assertThat(future).isCompletedWithValue(null);
			this.locked.skipVoid("busy");
			assertThat(this.locked.calls()).as("skipped methods must not run").isEmpty();
		}
		finally {
			held.release();
		}
		assertThat(this.locked.skipOptional("busy")).contains("ran");
	}

	@Test
	void fallbackRunsWithSameArgumentsWhenBusy() throws Exception {
		Lease held = holdElsewhere("fb-7");
		try {
			assertThat(this.locked.withFallback("fb", 7)).isEqualTo("fallback fb/7");
		}
		finally {
			held.release();
		}
		assertThat(this.locked.withFallback("fb", 7)).isEqualTo("locked fb/7");
	}

	@Test
	void throwsAcquisitionExceptionWhenBusy() throws Exception {
		Lease held = holdElsewhere("thr");
		try {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> this.locked.waitBriefly("thr"))
				.withMessageContaining("'thr'")
				.withMessageContaining("waitBriefly")
				.satisfies((ex) -> assertThat(ex.isTimeout()).isTrue());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("honours waitTime=300ms")
				.isGreaterThanOrEqualTo(Duration.ofMillis(290));
		}
		finally {
			held.release();
		}
	}

	@Test
	void currentLeaseCarriesIncreasingFencingTokens() {
		long first = this.locked.token("tok");
		long second = this.locked.token("tok");
		assertThat(first).isPositive();
		assertThat(second).isGreaterThan(first);
	}

	@Test
	void lostLeaseRaisesLockLostExceptionAfterTheMethodReturns() {
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> this.locked.loseLease("gone"))
			.withMessageContaining("'gone'");
		assertThat(this.locked.calls()).containsExactly("loseLease returned");
	}

	@Test
	void interruptModeInterruptsTheHolderWhenItsLeaseIsLost() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class))
			.withPropertyValues("distlock.provider=local", "distlock.on-lease-lost=interrupt",
					"distlock.watchdog.lease=1s")
			.withBean(Sleeper.class)
			.run((context) -> {
				Sleeper sleeper = context.getBean(Sleeper.class);
				LocalLockProvider backend = context.getBean(LocalLockProvider.class);
				long start = System.nanoTime();
				assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> sleeper.sleep("int", backend));
				assertThat(sleeper.interrupted()).as("the holder was interrupted").isTrue();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
				assertThat(Thread.currentThread().isInterrupted()).as("interrupt does not leak to the caller")
					.isFalse();
				assertThat(backend.liveLocks()).isZero();
			});
	}

	@Test
	void checkedExceptionPassesThroughAndReleases() {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> this.locked.failing("io")).withMessage("boom io");
		assertThat(this.lockTemplate.activeLeases()).isEmpty();
	}

	@Test
	void completableFutureHoldsTheLockUntilItCompletesOnAnotherThread() throws Exception {
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = this.locked.async("cf", work);
		assertThat(result).isNotDone();
		assertThat(this.lockTemplate.activeLeases()).extracting(LeaseSnapshot::key).containsExactly("cf");
		// the calling thread must not re-enter a lock whose work is still running
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.locked.async("cf", new CompletableFuture<>()));
		Thread completer = new Thread(() -> work.complete("done"), "completer");
		completer.start();
		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.lockTemplate.activeLeases()).as("released before the caller's future completed").isEmpty();
		assertThat(this.releases.threads).contains("completer");
	}

	@Test
	void failedCompletableFutureReleasesAndKeepsItsFailure() {
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = this.locked.async("cf-fail", work);
		work.completeExceptionally(new IllegalStateException("nope"));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalStateException.class);
		assertThat(this.lockTemplate.activeLeases()).isEmpty();
	}

	@Test
	void monoLocksOnSubscriptionAndHoldsUntilItCompletes() throws Exception {
		Sinks.One<String> work = Sinks.one();
		Mono<String> result = this.locked.mono("rx", work.asMono());
		assertThat(this.lockTemplate.activeLeases()).as("nothing is locked before subscription").isEmpty();
		CompletableFuture<String> done = result.toFuture();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.lockTemplate.activeLeases()).extracting(LeaseSnapshot::key)
				.containsExactly("rx"));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.locked.mono("rx", Mono.just("other")).block(Duration.ofSeconds(10)));
		work.tryEmitValue("done");
		assertThat(done.get(10, TimeUnit.SECONDS)).isEqualTo("done:rx");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.lockTemplate.activeLeases().isEmpty());
		assertThat(this.locked.mono("rx", Mono.just("again")).block(Duration.ofSeconds(10))).isEqualTo("again:rx");
	}

	@Test
	void monoSeesTheLeaseInTheReactorContext() {
		Long[] tokens = this.locked.monoTokens("rx-ctx").block(Duration.ofSeconds(10));
		assertThat(tokens).hasSize(2);
		assertThat(tokens[0]).as("token in LockContext while assembling").isPositive();
		assertThat(tokens[1]).as("token in the Reactor context").isEqualTo(tokens[0]);
	}

	@Test
	void fluxIsReleasedWhenCancelled() {
		List<Long> ticks = this.locked.ticks("rx-ticks").take(3).collectList().block(Duration.ofSeconds(10));
		assertThat(ticks).containsExactly(0L, 1L, 2L);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.lockTemplate.activeLeases().isEmpty());
	}

	@Test
	void subscriptionCancelledWhileWaitingReleasesTheLockItGetsLater() throws Exception {
		Lease held = holdElsewhere("rx-wait");
		Disposable subscription = this.locked.monoWaiting("rx-wait").subscribe();
		Thread.sleep(200);
		subscription.dispose();
		held.release();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.lockTemplate.activeLeases().isEmpty());
		assertThat(this.locked.calls()).as("the cancelled subscription never ran the method").isEmpty();
	}

	@Test
	void reactiveSkipAndFallbackWhenBusy() throws Exception {
		Lease held = holdElsewhere("rx-busy");
		try {
			assertThat(this.locked.monoSkip("rx-busy").block(Duration.ofSeconds(10))).isNull();
			assertThat(this.locked.fluxFallback("rx-busy").collectList().block(Duration.ofSeconds(10)))
				.containsExactly("fallback rx-busy");
		}
		finally {
			held.release();
		}
		assertThat(this.locked.fluxFallback("rx-busy").collectList().block(Duration.ofSeconds(10)))
			.containsExactly("locked rx-busy");
	}

	@Test
	void monoWhoseLeaseIsLostFailsWithLockLostException() {
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locked.monoLoseLease("rx-gone").block(Duration.ofSeconds(20)))
			.withMessageContaining("'rx-gone'");
	}

	@Test
	void placeholdersInDurationsAreResolved() {
		Duration left = this.locked.placeholders("ph");
		assertThat(left).as("lease from ${test.lock.lease}=7s").isBetween(Duration.ofSeconds(5), Duration.ofSeconds(7));
	}

	@Test
	void readersShareAndSemaphoreCountsPermits() throws Exception {
		Lease reader = holdElsewhere(LockRequest.builder("rw").type(LockType.READ).build());
		try {
			assertThat(this.locked.read("rw")).isTrue();
		}
		finally {
			reader.release();
		}
		Lease permit = holdElsewhere(LockRequest.builder("sem").type(LockType.SEMAPHORE).permits(2).build());
		try {
			assertThat(this.locked.semaphore("sem")).as("second of two permits").isTrue();
		}
		finally {
			permit.release();
		}
	}

	private Lease holdElsewhere(String key) throws Exception {
		return holdElsewhere(LockRequest.of(key));
	}

	/** Acquires on another thread, so the test thread does not simply re-enter. */
	private Lease holdElsewhere(LockRequest request) throws Exception {
		return this.executor.submit(() -> this.lockTemplate.acquire(request)).get(10, TimeUnit.SECONDS);
	}

	record Customer(String name) {
	}

	record Order(long id, Customer customer) {
	}

	public static class Keys {

		public String forOrder(long id) {
			return "order-" + id;
		}

	}

	public static class Locked {

		private final List<String> calls = new CopyOnWriteArrayList<>();

		/**
		 * Through a method: the test holds the CGLIB proxy, whose own fields are not the
		 * target's.
		 */
		public List<String> calls() {
			return this.calls;
		}

		private static String key() {
			return LockContext.currentLease().key();
		}

		@DistributedLock(key = "#order.id")
		public String byName(Order order) {
			return key();
		}

		@DistributedLock(key = "#p0 + ':' + #a1")
		public String byPosition(String id, int n) {
			return key();
		}

		@DistributedLock(key = "#order.customer.name")
		public String nested(Order order) {
			return key();
		}

		@DistributedLock(key = "@keys.forOrder(#id)")
		public String fromBean(long id) {
			return key();
		}

		@DistributedLock(key = "#root.methodName")
		public String fromRoot() {
			return key();
		}

		@DistributedLock(name = "invoice", key = "#id")
		public String nameAndKey(long id) {
			return key();
		}

		@DistributedLock(name = "invoice", key = "#id")
		public String leaseName(long id) {
			return LockContext.currentLease().name();
		}

		@DistributedLock(key = "#id")
		public String unnamedLeaseName(long id) {
			return LockContext.currentLease().name();
		}

		@DistributedLock(name = "nightly")
		public String nameOnly() {
			return key();
		}

		@DistributedLock
		public String noKey() {
			return key();
		}

		@DistributedLock(key = "#key", waitTime = "30s")
		public void guarded(String key, long requested, LockHistory history) throws InterruptedException {
			long start = System.nanoTime();
			Lease lease = LockContext.currentLease();
			Thread.sleep(1);
			history.record(lease, 1, Thread.currentThread().getName(), requested, start, System.nanoTime());
		}

		@DistributedLock(key = "#key", waitTime = "0", onFailure = LockFailureAction.SKIP)
		public String skipObject(String key) {
			this.calls.add("skipObject");
			return "ran";
		}

		@DistributedLock(key = "#key", waitTime = "0", onFailure = LockFailureAction.SKIP)
		public Optional<String> skipOptional(String key) {
			return Optional.of("ran");
		}

		@DistributedLock(key = "#key", waitTime = "0", onFailure = LockFailureAction.SKIP)
		public CompletableFuture<String> skipFuture(String key) {
			this.calls.add("skipFuture");
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(key = "#key", waitTime = "0", onFailure = LockFailureAction.SKIP)
		public void skipVoid(String key) {
			this.calls.add("skipVoid");
		}

		@DistributedLock(key = "#name + '-' + #n", waitTime = "0", fallbackMethod = "busyFallback")
		public String withFallback(String name, int n) {
			return "locked " + name + "/" + n;
		}

		@SuppressWarnings("unused")
		private String busyFallback(String name, int n) {
			assertThat(LockContext.findCurrentLease()).as("fallback runs without the lock").isEmpty();
			return "fallback " + name + "/" + n;
		}

		@DistributedLock(key = "#key", waitTime = "300ms")
		public void waitBriefly(String key) {
		}

		@DistributedLock(key = "#key")
		public long token(String key) {
			return LockContext.currentLease().fencingToken();
		}

		@DistributedLock(key = "#key")
		public void loseLease(String key) {
			// the backend holds distlock.key-prefix + key: clearing that name breaks this
			// very lease
			Lease lease = LockContext.currentLease();
			Config.BACKEND.clear("lock:" + key, LockType.MUTEX);
			await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
			this.calls.add("loseLease returned");
		}

		@DistributedLock(key = "#key")
		public void failing(String key) throws IOException {
			throw new IOException("boom " + key);
		}

		@DistributedLock(key = "#key", waitTime = "0")
		public CompletableFuture<String> async(String key, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(key = "#key", lease = "${test.lock.lease}", waitTime = "${test.lock.wait}")
		public Duration placeholders(String key) {
			return Duration.between(Instant.now(), LockContext.currentLease().expiresAt());
		}

		@DistributedLock(key = "#key", waitTime = "0")
		public Mono<String> mono(String key, Mono<String> work) {
			this.calls.add("mono " + key);
			return work.map((value) -> value + ":" + key);
		}

		@DistributedLock(key = "#key", waitTime = "20s")
		public Mono<String> monoWaiting(String key) {
			this.calls.add("monoWaiting " + key);
			return Mono.just("late");
		}

		@DistributedLock(key = "#key")
		public Mono<Long[]> monoTokens(String key) {
			long assembly = LockContext.currentLease().fencingToken();
			return Mono.deferContextual(
					(context) -> Mono.just(new Long[] { assembly, context.get(Lease.class).fencingToken() }));
		}

		@DistributedLock(key = "#key", waitTime = "0")
		public Flux<Long> ticks(String key) {
			return Flux.interval(Duration.ofMillis(10));
		}

		@DistributedLock(key = "#key", waitTime = "0", onFailure = LockFailureAction.SKIP)
		public Mono<String> monoSkip(String key) {
			return Mono.just("ran");
		}

		@DistributedLock(key = "#key", waitTime = "0", fallbackMethod = "fluxBusy")
		public Flux<String> fluxFallback(String key) {
			return Flux.just("locked " + key);
		}

		@SuppressWarnings("unused")
		private Flux<String> fluxBusy(String key) {
			return Flux.just("fallback " + key);
		}

		@DistributedLock(key = "#key")
		public Mono<String> monoLoseLease(String key) {
			Lease lease = LockContext.currentLease();
			return Mono.fromCallable(() -> {
				Config.BACKEND.clear("lock:" + key, LockType.MUTEX);
				await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
				return "finished unprotected";
			});
		}

		@DistributedLock(key = "#key", type = LockType.READ, waitTime = "0")
		public boolean read(String key) {
			return LockContext.currentLease().type() == LockType.READ;
		}

		@DistributedLock(key = "#key", type = LockType.SEMAPHORE, permits = 2, waitTime = "0")
		public boolean semaphore(String key) {
			return LockContext.currentLease().isValid();
		}

	}

	public static class Sleeper {

		private volatile boolean interrupted;

		@DistributedLock(key = "#key")
		public void sleep(String key, LocalLockProvider backend) {
			backend.clear("lock:" + key, LockType.MUTEX);
			try {
				Thread.sleep(30_000);
			}
			catch (InterruptedException ex) {
				this.interrupted = true;
			}
		}

		public boolean interrupted() {
			return this.interrupted;
		}

	}

	public static class Outer {

		private final Inner inner;

		Outer(Inner inner) {
			this.inner = inner;
		}

		@DistributedLock(key = "#key")
		public long[] outer(String key) {
			return new long[] { LockContext.currentLease().fencingToken(), this.inner.inner(key) };
		}

	}

	public static class Inner {

		@DistributedLock(key = "#key")
		public long inner(String key) {
			return LockContext.currentLease().fencingToken();
		}

	}

	static class ReleaseRecorder implements LockListener {

		final List<String> threads = new CopyOnWriteArrayList<>();

		@Override
		public void released(Lease lease, String provider, long heldNanos) {
			this.threads.add(Thread.currentThread().getName());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DistlockAutoConfiguration.class })
	static class Config {

		static final LocalLockProvider BACKEND = new LocalLockProvider();

		@Bean
		CountingLockProvider countingLockProvider() {
			return new CountingLockProvider(BACKEND);
		}

		@Bean
		ReleaseRecorder releaseRecorder() {
			return new ReleaseRecorder();
		}

		@Bean
		Keys keys() {
			return new Keys();
		}

		@Bean
		Locked locked() {
			return new Locked();
		}

		@Bean
		Inner inner() {
			return new Inner();
		}

		@Bean
		Outer outer(Inner inner) {
			return new Outer(inner);
		}

	}

}
