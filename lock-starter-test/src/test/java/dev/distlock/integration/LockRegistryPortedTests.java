package dev.distlock.integration;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.stream.IntStream;

import dev.distlock.core.Lease;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.integration.support.locks.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Spring Integration 7.1's own lock registry tests ({@code RedisLockRegistryTests} and
 * {@code JdbcLockRegistryDifferentClientTests}, which Spring Integration does not
 * publish), ported to the auto-configured {@link DistlockLockRegistry} on every backend:
 * each of Spring Integration's registries is an application context of its own (a
 * "process" with its own client; {@link LockRegistryContexts}), a registry's time to live
 * is {@code distlock.default-lease}, its renewal scheduler the watchdog and its registry
 * key {@code distlock.key-prefix}. The test methods keep Spring Integration's names and
 * every assertion on lock behaviour, exceptions included; assertions on a registry's
 * internal cache of lock objects (its size, {@code expireUnusedOlderThan}, its capacity)
 * have no counterpart, and where Spring Integration reads the store (a key's TTL, a key's
 * expiry) the test reads the holder's lease instead.
 */
@ParameterizedClass(name = "{0}")
@FieldSource("dev.distlock.integration.LockRegistryContexts#BACKENDS")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class LockRegistryPortedTests {

	/**
	 * How much longer than Spring Integration's the short times to live (and the sleeps
	 * measured against them) are: distlock refuses a grant that arrives after its lease
	 * ended, which a 100 ms lease meets on a loaded machine (a MariaDB acquire answered
	 * after 100 ms).
	 */
	private static final int SLOW = 3;

	/**
	 * Spring Integration's {@code RedisLockRegistry(factory, key, 100)}, times
	 * {@link #SLOW}.
	 */
	private static final String SHORT_TTL = "distlock.default-lease=" + (100 * SLOW) + "ms";

	/**
	 * Rounds of the tests Spring Integration repeats 100 times, fewer here to keep the
	 * class within minutes on eight backends.
	 */
	private static final int ROUNDS = 10;

	@Parameter
	String backend;

	private LockRegistryContexts contexts;

	/** A key of this test: Spring Integration's tests use a registry key of their own. */
	private String foo;

	private String bar;

	@BeforeParameterizedClassInvocation
	void start() throws Exception {
		this.contexts = new LockRegistryContexts(this.backend);
		// every process up before any test holds a short lease
		registry();
		other();
		withShortTtl();
		withWatchdogLease1s();
		withOtherKeyPrefix();
	}

	@AfterParameterizedClassInvocation
	void stop() throws Exception {
		this.contexts.close();
	}

	@BeforeEach
	void keys() {
		String id = UUID.randomUUID().toString().substring(0, 8);
		this.foo = "foo-" + id;
		this.bar = "bar-" + id;
	}

	/** The default registry ("the" registry of Spring Integration's tests). */
	private DistlockLockRegistry registry() {
		return this.contexts.registry("registry");
	}

	/** A registry in another process on the same store and registry key. */
	private DistlockLockRegistry other() {
		return this.contexts.registry("other");
	}

	/**
	 * A third process (a watchdog one, like the first two), and the probe of
	 * {@link #waitForExpire}.
	 */
	private DistlockLockRegistry third() {
		return withWatchdogLease1s();
	}

	private DistlockLockRegistry withShortTtl() {
		return this.contexts.registry("short-ttl", SHORT_TTL);
	}

	/** Spring Integration's registry with a renewal scheduler. */
	private DistlockLockRegistry withWatchdogLease1s() {
		return this.contexts.registry("watchdog-1s", "distlock.watchdog.lease=1s");
	}

	/** A registry on another registry key. */
	private DistlockLockRegistry withOtherKeyPrefix() {
		return this.contexts.registry("other-key", "distlock.key-prefix=si-other-" + UUID.randomUUID() + ":");
	}

	/**
	 * Waits until the holder's lease of {@code lock} ran out and the store let it go;
	 * Spring Integration waits until the Redis key is gone. The lease's end is judged by
	 * the lease's clock, which starts when the acquire was sent, so the store's (a
	 * database's, or the holder's process ending a ZooKeeper or etcd lease) may come a
	 * little later: a third process tries the key until it gets it.
	 */
	private void waitForExpire(Lock lock) throws InterruptedException {
		Lease lease = ((LeaseLock) lock).lease().orElseThrow();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (lease.isValid() && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(lease.isValid()).as(lease + " did not expire").isFalse();
		Lock probe = third().obtain(((LeaseLock) lock).key());
		assertThat(probe.tryLock(10, TimeUnit.SECONDS)).as(lease.key() + " not released in the store").isTrue();
		probe.unlock();
	}

	// ----- RedisLockRegistryTests -----

	@Test
	void testLock() {
		DistlockLockRegistry registry = registry();
		for (int i = 0; i < 10; i++) {
			Lock lock = registry.obtain(this.foo);
			lock.lock();
			lock.unlock();
		}
	}

	@Test
	void testLockWithCustomTtl() throws InterruptedException {
		DistlockLockRegistry registry = withShortTtl();
		long sleepTimeLongerThanDefaultTTL = 200 * SLOW;
		for (int i = 0; i < 3; i++) {
			DistributedLock lock = registry.obtain(this.foo);
			lock.lock(Duration.ofMillis(500 * SLOW));
			try {
				Thread.sleep(sleepTimeLongerThanDefaultTTL);
			}
			finally {
				assertThatNoException().isThrownBy(lock::unlock);
			}
		}
	}

	@Test
	void testTryLockWithCustomTtl() throws InterruptedException {
		DistlockLockRegistry registry = withShortTtl();
		long sleepTimeLongerThanDefaultTTL = 200 * SLOW;
		for (int i = 0; i < 3; i++) {
			DistributedLock lock = registry.obtain(this.foo);
			lock.tryLock(Duration.ofMillis(100 * SLOW), Duration.ofMillis(500 * SLOW));
			try {
				Thread.sleep(sleepTimeLongerThanDefaultTTL);
			}
			finally {
				assertThatNoException().isThrownBy(lock::unlock);
			}
		}
	}

	@Test
	void testUnlockAfterLockStatusHasBeenExpired() throws InterruptedException {
		DistlockLockRegistry registry = withShortTtl();
		Lock lock = registry.obtain(this.foo);
		lock.lock();
		Thread.sleep(200 * SLOW);
		assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
	}

	@Test
	void testLockInterruptibly() throws Exception {
		DistlockLockRegistry registry = registry();
		for (int i = 0; i < 10; i++) {
			Lock lock = registry.obtain(this.foo);
			lock.lockInterruptibly();
			lock.unlock();
		}
	}

	@Test
	void testReentrantLock() {
		DistlockLockRegistry registry = registry();
		for (int i = 0; i < 10; i++) {
			Lock lock1 = registry.obtain(this.foo);
			lock1.lock();
			try {
				Lock lock2 = registry.obtain(this.foo);
				assertThat(lock2).isSameAs(lock1);
				lock2.lock();
				lock2.unlock();
			}
			finally {
				lock1.unlock();
			}
		}
	}

	@Test
	void testReentrantLockInterruptibly() throws Exception {
		DistlockLockRegistry registry = registry();
		for (int i = 0; i < 10; i++) {
			Lock lock1 = registry.obtain(this.foo);
			lock1.lockInterruptibly();
			try {
				Lock lock2 = registry.obtain(this.foo);
				assertThat(lock2).isSameAs(lock1);
				lock2.lockInterruptibly();
				lock2.unlock();
			}
			finally {
				lock1.unlock();
			}
		}
	}

	@Test
	void testTwoLocks() throws Exception {
		DistlockLockRegistry registry = registry();
		for (int i = 0; i < 10; i++) {
			Lock lock1 = registry.obtain(this.foo);
			lock1.lockInterruptibly();
			try {
				Lock lock2 = registry.obtain(this.bar);
				assertThat(lock2).isNotSameAs(lock1);
				lock2.lockInterruptibly();
				lock2.unlock();
			}
			finally {
				lock1.unlock();
			}
		}
	}

	@Test
	void testTwoThreadsSecondFailsToGetLock() throws Exception {
		DistlockLockRegistry registry = registry();
		Lock lock1 = registry.obtain(this.foo);
		lock1.lockInterruptibly();
		AtomicBoolean locked = new AtomicBoolean();
		CountDownLatch latch = new CountDownLatch(1);
		ExecutorService executorService = Executors.newSingleThreadExecutor();
		Future<Object> result = executorService.submit(() -> {
			Lock lock2 = registry.obtain(this.foo);
			locked.set(lock2.tryLock(200, TimeUnit.MILLISECONDS));
			latch.countDown();
			try {
				lock2.unlock();
			}
			catch (IllegalStateException ise) {
				return ise;
			}
			return null;
		});
		assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(locked.get()).isFalse();
		lock1.unlock();
		Object ise = result.get(10, TimeUnit.SECONDS);
		assertThat(ise).isInstanceOf(IllegalStateException.class);
		assertThat(((Exception) ise).getMessage()).contains("You do not own lock at");
		executorService.shutdown();
	}

	@Test
	void testTwoThreads() throws Exception {
		DistlockLockRegistry registry = registry();
		twoThreads(registry, registry);
	}

	@Test
	void testTwoThreadsDifferentRegistries() throws Exception {
		twoThreads(registry(), other());
	}

	private void twoThreads(DistlockLockRegistry registry1, DistlockLockRegistry registry2) throws Exception {
		Lock lock1 = registry1.obtain(this.foo);
		AtomicBoolean locked = new AtomicBoolean();
		CountDownLatch latch1 = new CountDownLatch(1);
		CountDownLatch latch2 = new CountDownLatch(1);
		CountDownLatch latch3 = new CountDownLatch(1);
		lock1.lockInterruptibly();
		ExecutorService executorService = Executors.newSingleThreadExecutor();
		executorService.execute(() -> {
			Lock lock2 = registry2.obtain(this.foo);
			try {
				latch1.countDown();
				lock2.lockInterruptibly();
				latch2.await(10, TimeUnit.SECONDS);
				locked.set(true);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock2.unlock();
				latch3.countDown();
			}
		});
		assertThat(latch1.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(locked.get()).isFalse();
		lock1.unlock();
		latch2.countDown();
		assertThat(latch3.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(locked.get()).isTrue();
		executorService.shutdown();
	}

	@Test
	void testTwoThreadsWrongOneUnlocks() throws Exception {
		DistlockLockRegistry registry = registry();
		Lock lock = registry.obtain(this.foo);
		lock.lockInterruptibly();
		AtomicBoolean locked = new AtomicBoolean();
		CountDownLatch latch = new CountDownLatch(1);
		ExecutorService executorService = Executors.newSingleThreadExecutor();
		Future<Object> result = executorService.submit(() -> {
			try {
				lock.unlock();
			}
			catch (IllegalStateException ise) {
				latch.countDown();
				return ise;
			}
			return null;
		});
		assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(locked.get()).isFalse();
		lock.unlock();
		Object ise = result.get(10, TimeUnit.SECONDS);
		assertThat(ise).isInstanceOf(IllegalStateException.class);
		assertThat(((Exception) ise).getMessage()).contains("You do not own lock at");
		executorService.shutdown();
	}

	@Test
	void testExpireTwoRegistries() throws Exception {
		Lock lock1 = withShortTtl().obtain(this.foo);
		Lock lock2 = other().obtain(this.foo);
		assertThat(lock1.tryLock()).isTrue();
		assertThat(lock2.tryLock()).isFalse();
		waitForExpire(lock1);
		assertThat(lock2.tryLock()).isTrue();
		assertThat(lock1.tryLock()).isFalse();
		lock2.unlock();
	}

	@Test
	void testExceptionOnExpire() throws Exception {
		// Spring Integration's time to live here is 1 ms; distlock refuses a grant that
		// arrives after its lease ended, so the shortest lease the test can rely on is
		// longer
		Lock lock1 = withShortTtl().obtain(this.foo);
		assertThat(lock1.tryLock()).isTrue();
		waitForExpire(lock1);
		assertThatThrownBy(lock1::unlock).isInstanceOf(ConcurrentModificationException.class)
			.hasMessageContaining("Lock was released in the store due to expiration.");
	}

	@Test
	void testRenewalOnExpire() throws Exception {
		// Spring Integration's time to live here is 300 ms; the watchdog renews every
		// third of its lease, which on a loaded machine needs more than 100 ms of slack
		long expireAfter = 1000L;
		DistlockLockRegistry registry = withWatchdogLease1s();
		Lock lock1 = registry.obtain(this.foo);
		assertThat(lock1.tryLock()).isTrue();
		Thread.sleep(expireAfter * 2);
		lock1.unlock();
	}

	@Test
	void testEquals() {
		DistlockLockRegistry registry1 = registry();
		DistlockLockRegistry registry2 = other();
		DistlockLockRegistry registry3 = withOtherKeyPrefix();

		Lock lock1 = registry1.obtain(this.foo);
		Lock lock2 = registry1.obtain(this.foo);
		assertThat(lock2).isEqualTo(lock1);
		lock1.lock();
		lock2.lock();
		assertThat(lock2).isEqualTo(lock1);
		lock1.unlock();
		lock2.unlock();
		assertThat(lock2).isEqualTo(lock1);

		lock1 = registry1.obtain(this.foo);
		lock2 = registry2.obtain(this.foo);
		assertThat(lock2).isNotEqualTo(lock1);
		lock1.lock();
		assertThat(lock2.tryLock()).isFalse();
		lock1.unlock();

		lock1 = registry1.obtain(this.foo);
		lock2 = registry3.obtain(this.foo);
		assertThat(lock2).isNotEqualTo(lock1);
		lock1.lock();
		lock2.lock();
		lock1.unlock();
		lock2.unlock();
	}

	@Test
	void testThreadLocalListLeaks() {
		DistlockLockRegistry registry = registry();
		for (int i = 0; i < 10; i++) {
			registry.obtain(this.foo + i);
		}
		for (int i = 0; i < 10; i++) {
			Lock lock = registry.obtain(this.foo + i);
			lock.lock();
		}
		for (int i = 0; i < 10; i++) {
			Lock lock = registry.obtain(this.foo + i);
			lock.unlock();
		}
	}

	@Test
	void testExpireNotChanged() throws Exception {
		// Spring Integration's registry has a time to live of 10 s
		DistlockLockRegistry registry = registry();
		DistributedLock lock = registry.obtain(this.foo);
		lock.lock(Duration.ofSeconds(10));
		// Spring Integration reads the key's TTL in Redis (in seconds); distlock's is the
		// lease's expiry, an estimate on the local clock
		Lease lease = ((LeaseLock) lock).lease().orElseThrow();
		Instant expire = lease.expiresAt();
		ExecutorService executorService = Executors.newSingleThreadExecutor();
		Future<Object> result = executorService.submit(() -> {
			Lock lock2 = registry.obtain(this.foo);
			assertThat(lock2.tryLock()).isFalse();
			return null;
		});
		result.get();
		assertThat(lease.expiresAt()).isCloseTo(expire, within(1, ChronoUnit.MILLIS));
		lock.unlock();
		executorService.shutdown();
	}

	@Test
	void twoRedisLockRegistryTest() throws InterruptedException {
		Lock obtainLock1 = registry().obtain(this.foo);
		Lock obtainLock2 = other().obtain(this.foo);
		CountDownLatch registry1Lock = new CountDownLatch(1);
		CountDownLatch endDownLatch = new CountDownLatch(2);
		CompletableFuture<Void> future1 = CompletableFuture.runAsync(() -> {
			obtainLock1.lock();
			registry1Lock.countDown();
			obtainLock1.unlock();
			endDownLatch.countDown();
		});
		CompletableFuture<Void> future2 = CompletableFuture.runAsync(() -> {
			try {
				registry1Lock.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			obtainLock2.lock();
			obtainLock2.unlock();
			endDownLatch.countDown();
		});
		assertThat(endDownLatch.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(future1).isNotCompletedExceptionally();
		assertThat(future2).isNotCompletedExceptionally();
	}

	@Test
	void multiRedisLockRegistryTest() throws Exception {
		int lockRegistryNum = 10;
		ExecutorService executorService = Executors.newFixedThreadPool(lockRegistryNum * 2);
		AtomicInteger atomicInteger = new AtomicInteger(0);
		// ten registries: five in each of two processes
		List<Callable<Boolean>> collect = IntStream.range(0, lockRegistryNum)
			.mapToObj((num) -> new DistlockLockRegistry(this.contexts.template((num % 2 == 0) ? "registry" : "other")))
			.map((registry) -> (Callable<Boolean>) () -> {
				Lock obtain = registry.obtain(this.foo);
				obtain.lock();
				obtain.unlock();
				atomicInteger.incrementAndGet();
				return true;
			})
			.toList();
		int testCnt = 3;
		for (int i = 0; i < testCnt; i++) {
			for (Future<Boolean> fu : executorService.invokeAll(collect)) {
				fu.get();
			}
		}
		assertThat(atomicInteger.get()).isEqualTo(testCnt * lockRegistryNum);
		executorService.shutdown();
	}

	@Test
	void earlyWakeUpTest() throws InterruptedException {
		int threadCnt = 2;
		CountDownLatch tryLockReady = new CountDownLatch(threadCnt);
		CountDownLatch awaitTimeout = new CountDownLatch(threadCnt);
		ExecutorService executorService = Executors.newFixedThreadPool(threadCnt);
		Lock lock1 = registry().obtain(this.foo);
		Lock lock2 = other().obtain(this.foo);
		Lock lock3 = third().obtain(this.foo);
		AtomicInteger expectOne = new AtomicInteger();
		lock1.lock();
		for (Lock waiter : List.of(lock2, lock3)) {
			executorService.submit(() -> {
				try {
					tryLockReady.countDown();
					boolean b = waiter.tryLock(10, TimeUnit.SECONDS);
					awaitTimeout.countDown();
					if (b) {
						expectOne.incrementAndGet();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
		}
		assertThat(tryLockReady.await(10, TimeUnit.SECONDS)).isTrue();
		lock1.unlock();
		assertThat(awaitTimeout.await(1, TimeUnit.SECONDS)).isFalse();
		assertThat(expectOne.get()).isEqualTo(1);
		executorService.shutdownNow();
	}

	@Test
	void testTwoThreadsRemoveAndObtainSameLockSimultaneously() throws Exception {
		// 200 in Spring Integration
		int testCnt = 25;
		long lockWaitTimeMillis = 500;
		DistlockLockRegistry registry = registry();
		for (int i = 0; i < testCnt; i++) {
			String lockKey = this.foo + i;
			CountDownLatch latch = new CountDownLatch(1);
			AtomicReference<Lock> lock1 = new AtomicReference<>();
			AtomicReference<Lock> lock2 = new AtomicReference<>();
			Thread thread1 = new Thread(() -> obtainLockUnlock(registry, lockKey, latch, lockWaitTimeMillis, lock1));
			Thread thread2 = new Thread(() -> obtainLockUnlock(registry, lockKey, latch, lockWaitTimeMillis, lock2));
			thread1.start();
			thread2.start();
			latch.countDown();
			thread1.join();
			thread2.join();
			// locks must be the same!
			assertThat(lock1.get()).isEqualTo(lock2.get());
		}
	}

	private static void obtainLockUnlock(DistlockLockRegistry registry, String lockKey, CountDownLatch latch,
			long waitMillis, AtomicReference<Lock> obtained) {
		try {
			latch.await();
			Lock lock = registry.obtain(lockKey);
			lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
			lock.unlock();
			obtained.set(lock);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void testLockRenew() {
		DistlockLockRegistry registry = registry();
		Lock lock = registry.obtain(this.foo);
		assertThat(lock.tryLock()).isTrue();
		try {
			registry.renewLock(this.foo);
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void testLockRenewLockNotOwned() {
		DistlockLockRegistry registry = registry();
		registry.obtain(this.foo);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> registry.renewLock(this.foo));
	}

	@Test
	void testLockRenewWithCustomTtl() throws InterruptedException {
		DistlockLockRegistry registry = registry();
		DistributedLock lock = registry.obtain(this.foo);
		Lock lockOfAnotherProcess = other().obtain(this.foo);
		long ttl = 100 * SLOW;
		long sleepTimeLongerThanTtl = 110 * SLOW;
		assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(ttl))).isTrue();
		try {
			registry.renewLock(this.foo, Duration.ofSeconds(2));
			Thread.sleep(sleepTimeLongerThanTtl);
			assertThat(lockOfAnotherProcess.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void testUnlockDoesNotDeleteOtherClientsLock() throws Exception {
		Lock lock1 = withShortTtl().obtain(this.foo);
		lock1.lock();
		waitForExpire(lock1);
		// Spring Integration's other registry has a time to live of 10 s
		Lock lock2 = other().obtain(this.foo);
		assertThat(lock2.tryLock()).isTrue();
		try {
			assertThatThrownBy(lock1::unlock).isInstanceOf(ConcurrentModificationException.class);
		}
		finally {
			lock2.unlock();
		}
	}

	@Test
	void noSecondLockOnEviction() throws Exception {
		DistlockLockRegistry registry = registry();
		CountDownLatch lock1Latch = new CountDownLatch(1);
		CountDownLatch furtherLocksLatch = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		String lock1Key = this.foo + "-lock1";
		executor.execute(() -> {
			DistributedLock lock1 = registry.obtain(lock1Key);
			lock1.lock();
			try {
				furtherLocksLatch.countDown();
				lock1Latch.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock1.unlock();
			}
		});
		assertThat(furtherLocksLatch.await(10, TimeUnit.SECONDS)).isTrue();
		// Spring Integration evicts 'lock1' from a cache of two; distlock's registry
		// drops
		// the locks nothing references when the garbage collector runs
		registry.obtain(this.foo + "-lock2");
		registry.obtain(this.foo + "-lock3");
		System.gc();
		DistributedLock lock1 = registry.obtain(lock1Key);
		// Cannot lock because 'lock1' is still locked by another thread
		assertThat(lock1.tryLock(1, TimeUnit.SECONDS)).isFalse();
		lock1Latch.countDown();
		assertThatNoException().isThrownBy(() -> {
			lock1.lock();
			lock1.unlock();
		});
		executor.shutdown();
	}

	@Test
	void testUnlockWhenInterruptedBlocksUntilKeyRemoved() throws Exception {
		// Spring Integration freezes its release executor to show that unlock() waits
		// for the release; distlock has no such executor: an interrupted thread's
		// unlock() still releases the lock before it returns
		DistlockLockRegistry registry = registry();
		Lock lock = registry.obtain(this.foo);
		Thread testThread = new Thread(() -> {
			lock.lock();
			try {
				Thread.currentThread().interrupt();
			}
			finally {
				lock.unlock();
			}
		});
		testThread.start();
		testThread.join(10_000);
		assertThat(testThread.isAlive()).isFalse();
		Lock localUserLock = registry.obtain(this.foo);
		assertThat(localUserLock.tryLock()).isTrue();
		localUserLock.unlock();
		Lock elsewhere = other().obtain(this.foo);
		assertThat(elsewhere.tryLock(5, TimeUnit.SECONDS)).as("released in the store").isTrue();
		elsewhere.unlock();
	}

	// ----- JdbcLockRegistryDifferentClientTests -----

	@Test
	void testSecondThreadLoses() throws Exception {
		// 100 rounds in Spring Integration
		for (int i = 0; i < ROUNDS; i++) {
			DistlockLockRegistry registry1 = registry();
			DistlockLockRegistry registry2 = other();
			Lock lock1 = registry1.obtain(this.foo);
			AtomicBoolean locked = new AtomicBoolean();
			CountDownLatch latch1 = new CountDownLatch(1);
			CountDownLatch latch2 = new CountDownLatch(1);
			CountDownLatch latch3 = new CountDownLatch(1);
			lock1.lockInterruptibly();
			new SimpleAsyncTaskExecutor().execute(() -> {
				Lock lock2 = registry2.obtain(this.foo);
				try {
					latch1.countDown();
					lock2.lockInterruptibly();
					latch2.await(10, TimeUnit.SECONDS);
					locked.set(true);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					lock2.unlock();
					latch3.countDown();
				}
			});
			assertThat(latch1.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(locked.get()).isFalse();
			lock1.unlock();
			latch2.countDown();
			assertThat(latch3.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(locked.get()).isTrue();
		}
	}

	@Test
	void testBothLock() throws Exception {
		// 100 rounds in Spring Integration
		for (int i = 0; i < ROUNDS; i++) {
			DistlockLockRegistry registry1 = registry();
			DistlockLockRegistry registry2 = other();
			List<String> locked = Collections.synchronizedList(new ArrayList<>());
			CountDownLatch latch = new CountDownLatch(2);
			ExecutorService pool = Executors.newFixedThreadPool(2);
			for (DistlockLockRegistry registry : List.of(registry1, registry2)) {
				String name = (registry == registry1) ? "1" : "2";
				pool.execute(() -> {
					Lock lock = registry.obtain(this.foo);
					try {
						lock.lockInterruptibly();
						locked.add(name);
						latch.countDown();
					}
					catch (InterruptedException e1) {
						Thread.currentThread().interrupt();
					}
					finally {
						try {
							lock.unlock();
						}
						catch (Exception e2) {
							// ignore
						}
					}
				});
			}
			assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
			// eventually they both get the lock and release it
			assertThat(locked.contains("1")).isTrue();
			assertThat(locked.contains("2")).isTrue();
			pool.shutdownNow();
		}
	}

	@Test
	void testOnlyOneLock() throws Exception {
		// 100 rounds in Spring Integration
		for (int i = 0; i < ROUNDS; i++) {
			BlockingQueue<String> locked = new LinkedBlockingQueue<>();
			CountDownLatch latch = new CountDownLatch(20);
			ExecutorService pool = Executors.newFixedThreadPool(20);
			List<Callable<Boolean>> tasks = new ArrayList<>();
			for (int j = 0; j < 20; j++) {
				// a new registry each, in one of two processes
				String process = (j % 2 == 0) ? "registry" : "other";
				Callable<Boolean> task = () -> {
					Lock lock = new DistlockLockRegistry(this.contexts.template(process)).obtain(this.foo);
					try {
						if (locked.isEmpty() && lock.tryLock(Long.MAX_VALUE, TimeUnit.MILLISECONDS)) {
							if (locked.isEmpty()) {
								locked.add("done");
								return true;
							}
						}
					}
					finally {
						try {
							lock.unlock();
						}
						catch (Exception ex) {
							// ignore
						}
						latch.countDown();
					}
					return false;
				};
				tasks.add(task);
			}
			pool.invokeAll(tasks);
			assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(locked.size()).isEqualTo(1);
			assertThat(locked.contains("done")).isTrue();
			pool.shutdownNow();
		}
	}

	@Test
	void testExclusiveAccess() throws Exception {
		Lock lock1 = registry().obtain(this.foo);
		BlockingQueue<Integer> data = new LinkedBlockingQueue<>();
		CountDownLatch latch1 = new CountDownLatch(1);
		lock1.lockInterruptibly();
		new SimpleAsyncTaskExecutor().execute(() -> {
			Lock lock2 = other().obtain(this.foo);
			try {
				latch1.countDown();
				lock2.lockInterruptibly();
				data.add(4);
				Thread.sleep(10);
				data.add(5);
				Thread.sleep(10);
				data.add(6);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock2.unlock();
			}
		});
		assertThat(latch1.await(10, TimeUnit.SECONDS)).isTrue();
		data.add(1);
		Thread.sleep(100);
		data.add(2);
		Thread.sleep(100);
		data.add(3);
		lock1.unlock();
		for (int i = 0; i < 6; i++) {
			Integer integer = data.poll(10, TimeUnit.SECONDS);
			assertThat(integer).isNotNull();
			assertThat(integer.intValue()).isEqualTo(i + 1);
		}
	}

	@Test
	void testOutOfDateLockTaken() throws Exception {
		Lock lock1 = withShortTtl().obtain(this.foo);
		BlockingQueue<Integer> data = new LinkedBlockingQueue<>();
		CountDownLatch latch = new CountDownLatch(1);
		lock1.lockInterruptibly();
		Thread.sleep(500 * SLOW);
		new SimpleAsyncTaskExecutor().execute(() -> {
			// Spring Integration's other client has the same time to live of 100 ms
			Lock lock2 = other().obtain(this.foo);
			try {
				lock2.lockInterruptibly();
				data.add(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock2.unlock();
			}
			latch.countDown();
		});
		assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
		data.add(2);
		assertThatThrownBy(lock1::unlock).isInstanceOf(ConcurrentModificationException.class);
		for (int i = 0; i < 2; i++) {
			Integer integer = data.poll(10, TimeUnit.SECONDS);
			assertThat(integer).isNotNull();
			assertThat(integer.intValue()).isEqualTo(i + 1);
		}
	}

	@Test
	void testRenewLock() throws Exception {
		// Spring Integration's registries have a time to live of 500 ms: here the hold's
		// own (times SLOW), which renewLock(key) renews by
		DistlockLockRegistry registry = registry();
		DistributedLock lock1 = registry.obtain(this.foo);
		BlockingQueue<Integer> data = new LinkedBlockingQueue<>();
		CountDownLatch latch1 = new CountDownLatch(2);
		CountDownLatch latch2 = new CountDownLatch(1);
		lock1.lock(Duration.ofMillis(500 * SLOW));
		new SimpleAsyncTaskExecutor().execute(() -> {
			Lock lock2 = other().obtain(this.foo);
			try {
				latch1.countDown();
				lock2.lockInterruptibly();
				data.add(4);
				Thread.sleep(10);
				data.add(5);
				Thread.sleep(10);
				data.add(6);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock2.unlock();
			}
		});
		new SimpleAsyncTaskExecutor().execute(() -> {
			try {
				latch1.countDown();
				Thread.sleep(500);
				data.add(1);
				Thread.sleep(100);
				data.add(2);
				Thread.sleep(100);
				data.add(3);
				latch2.countDown();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		assertThat(latch1.await(10, TimeUnit.SECONDS)).isTrue();
		while (latch2.getCount() > 0) {
			Thread.sleep(100);
			registry.renewLock(this.foo);
		}
		lock1.unlock();
		for (int i = 0; i < 6; i++) {
			Integer integer = data.poll(10, TimeUnit.SECONDS);
			assertThat(integer).isNotNull();
			assertThat(integer.intValue()).isEqualTo(i + 1);
		}
	}

}
