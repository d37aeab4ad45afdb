package dev.distlock.integration;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The JDK's own tests of {@code Lock}, ported to {@link LeaseLock} on every backend: the
 * methods of jsr166's TCK {@code ReentrantLockTest} that hold for any {@code Lock}
 * (without conditions, serialization, or the queue and owner introspection
 * {@code LeaseLock} does not have), each also on a FAIR lock as the TCK's {@code _fair}
 * variants, and OpenJDK's {@code CheckedLockLoops} and {@code CancelledLockLoops} with
 * loop counts for a network backend. The jsr166 sources are in the public domain; method
 * names are kept.
 * <p>
 * {@code contexts:<backend>} runs the same tests across two application contexts on one
 * backend, each with its own auto-configured template: the main thread locks through one
 * context's {@code LeaseLock}, the threads it starts through the other's (the loops
 * alternate their threads between both), so exclusion is between two applications.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = { "local", "redis", "redisson", "postgres", "mariadb", "h2", "zookeeper", "etcd",
		"contexts:redis", "contexts:zookeeper" })
@Timeout(120)
class LeaseLockTckTests {

	/** JSR166TestCase's LONG_DELAY_MS, generous for a loaded machine. */
	static final long LONG_DELAY_MS = 30_000;

	private static LeaseLockBackends backends;

	private static final Map<String, LockTemplate[]> templates = new ConcurrentHashMap<>();

	@Parameter
	String setup;

	private final String key = "tck-" + UUID.randomUUID().toString().substring(0, 8);

	/** For each lock the main thread uses, the one its other threads use. */
	private final Map<Lock, LeaseLock> elsewhere = new ConcurrentHashMap<>();

	private final AtomicReference<Throwable> threadFailure = new AtomicReference<>();

	private final List<Thread> started = new ArrayList<>();

	@BeforeAll
	static void startBackends() {
		backends = new LeaseLockBackends();
	}

	@AfterAll
	static void closeBackends() throws Exception {
		templates.clear();
		backends.close();
	}

	/**
	 * What JSR166TestCase's tearDown checks: no thread failed, none is left running.
	 */
	@AfterEach
	void tearDown() throws Exception {
		for (Thread thread : this.started) {
			thread.interrupt();
			thread.join(LONG_DELAY_MS);
			assertThat(thread.isAlive()).as("thread %s still running", thread.getName()).isFalse();
		}
		Throwable failure = this.threadFailure.get();
		if (failure != null) {
			throw new AssertionError("A thread of the test failed: " + failure, failure);
		}
	}

	private LockTemplate[] templates() {
		return templates.computeIfAbsent(this.setup, (name) -> {
			try {
				if (name.startsWith("contexts:")) {
					String backend = name.substring("contexts:".length());
					return new LockTemplate[] { backends.application(backend).getBean(LockTemplate.class),
							backends.application(backend).getBean(LockTemplate.class) };
				}
				LockTemplate process = backends.process(name);
				return new LockTemplate[] { process, process };
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not start " + name, ex);
			}
		});
	}

	/**
	 * The lock under test, of a key of the test's own (a new one for each lock); across
	 * contexts its twin in the other context is what {@link #other(Lock)} gives.
	 */
	private LeaseLock newLock(boolean fair) {
		LockTemplate[] pair = templates();
		LockRequest request = LockRequest.builder(this.key + ":" + this.elsewhere.size())
			.type(fair ? LockType.FAIR : LockType.MUTEX)
			.build();
		LeaseLock lock = new LeaseLock(pair[0], request);
		this.elsewhere.put(lock, (pair[1] != pair[0]) ? new LeaseLock(pair[1], request) : lock);
		return lock;
	}

	/** The lock the main thread's other threads use: the same, or its twin. */
	private LeaseLock other(Lock lock) {
		return this.elsewhere.get(lock);
	}

	// ------------------------------------------------------------ JSR166TestCase

	void threadUnexpectedException(Throwable failure) {
		this.threadFailure.compareAndSet(null, failure);
	}

	Thread newStartedThread(Runnable runnable) {
		Thread thread = new Thread(runnable, "tck-" + this.started.size());
		thread.setDaemon(true);
		this.started.add(thread);
		thread.start();
		return thread;
	}

	void awaitTermination(Thread thread) {
		try {
			thread.join(LONG_DELAY_MS);
		}
		catch (InterruptedException ex) {
			throw new AssertionError(ex);
		}
		if (thread.isAlive()) {
			fail("timed out waiting for thread to terminate: " + thread.getName());
		}
	}

	/**
	 * Spin-waits until the thread blocks waiting (JSR166TestCase's
	 * waitForThreadToEnterWaitState): what stands in for the TCK's
	 * {@code waitForQueuedThread}, which needs {@code hasQueuedThread}.
	 */
	void waitForQueuedThread(Lock lock, Thread thread) {
		long startTime = System.nanoTime();
		while (true) {
			Thread.State state = thread.getState();
			if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
				break;
			}
			if (state == Thread.State.TERMINATED) {
				fail("thread " + thread.getName() + " ended instead of waiting for " + lock);
			}
			if (millisElapsedSince(startTime) > LONG_DELAY_MS) {
				throw new AssertionError("timed out");
			}
			Thread.yield();
		}
		assertThat(thread.isAlive()).isTrue();
	}

	static long millisElapsedSince(long startNanoTime) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanoTime);
	}

	/** The TCK's timeoutMillis(), long enough for a backend round trip to matter. */
	static long timeoutMillis() {
		return 100;
	}

	/** A runnable whose failures fail the test. */
	abstract class CheckedRunnable implements Runnable {

		abstract void realRun() throws Throwable;

		@Override
		public final void run() {
			try {
				realRun();
			}
			catch (Throwable failure) {
				threadUnexpectedException(failure);
			}
		}

	}

	/**
	 * A runnable that must end with an {@link InterruptedException}, the interrupt status
	 * cleared.
	 */
	abstract class CheckedInterruptedRunnable implements Runnable {

		abstract void realRun() throws Throwable;

		@Override
		public final void run() {
			try {
				realRun();
			}
			catch (InterruptedException success) {
				if (Thread.interrupted()) {
					threadUnexpectedException(
							new AssertionError("interrupt status still set after InterruptedException", success));
				}
				return;
			}
			catch (Throwable failure) {
				threadUnexpectedException(failure);
				return;
			}
			threadUnexpectedException(new AssertionError("should throw InterruptedException"));
		}

	}

	// ------------------------------------------------------------ ReentrantLockTest

	/** A checked runnable calling lockInterruptibly that expects to be interrupted. */
	class InterruptedLockRunnable extends CheckedInterruptedRunnable {

		final Lock lock;

		InterruptedLockRunnable(Lock lock) {
			this.lock = lock;
		}

		@Override
		void realRun() throws InterruptedException {
			this.lock.lockInterruptibly();
		}

	}

	/** Releases the lock, checking that the calling thread held it. */
	void releaseLock(LeaseLock lock) {
		assertLockedByMoi(lock);
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertNotLocked(lock);
	}

	void assertNotLocked(LeaseLock lock) {
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.lease()).isEmpty();
	}

	void assertLockedByMoi(LeaseLock lock) {
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.lease()).hasValueSatisfying((lease) -> assertThat(lease.isValid()).isTrue());
	}

	/** locking an unlocked lock succeeds */
	@Test
	void testLock() {
		testLock(false);
	}

	@Test
	void testLock_fair() {
		testLock(true);
	}

	void testLock(boolean fair) {
		LeaseLock lock = newLock(fair);
		lock.lock();
		assertLockedByMoi(lock);
		releaseLock(lock);
	}

	/** Unlocking an unlocked lock throws IllegalMonitorStateException */
	@Test
	void testUnlock_IMSE() {
		testUnlock_IMSE(false);
	}

	@Test
	void testUnlock_IMSE_fair() {
		testUnlock_IMSE(true);
	}

	void testUnlock_IMSE(boolean fair) {
		LeaseLock lock = newLock(fair);
		try {
			lock.unlock();
			fail("should throw");
		}
		catch (IllegalMonitorStateException success) {
			// expected
		}
	}

	/** tryLock on an unlocked lock succeeds */
	@Test
	void testTryLock() {
		testTryLock(false);
	}

	@Test
	void testTryLock_fair() {
		testTryLock(true);
	}

	void testTryLock(boolean fair) {
		LeaseLock lock = newLock(fair);
		assertThat(lock.tryLock()).isTrue();
		assertLockedByMoi(lock);
		assertThat(lock.tryLock()).isTrue();
		assertLockedByMoi(lock);
		lock.unlock();
		releaseLock(lock);
	}

	/** timed tryLock is interruptible */
	@Test
	void testTryLock_Interruptible() {
		testTryLock_Interruptible(false);
	}

	@Test
	void testTryLock_Interruptible_fair() {
		testTryLock_Interruptible(true);
	}

	void testTryLock_Interruptible(boolean fair) {
		LeaseLock lock = newLock(fair);
		lock.lock();
		Lock other = other(lock);
		Thread t = newStartedThread(new CheckedInterruptedRunnable() {
			@Override
			void realRun() throws InterruptedException {
				other.tryLock(2 * LONG_DELAY_MS, MILLISECONDS);
			}
		});

		waitForQueuedThread(lock, t);
		t.interrupt();
		awaitTermination(t);
		releaseLock(lock);
	}

	/** tryLock on a locked lock fails */
	@Test
	void testTryLockWhenLocked() {
		testTryLockWhenLocked(false);
	}

	@Test
	void testTryLockWhenLocked_fair() {
		testTryLockWhenLocked(true);
	}

	void testTryLockWhenLocked(boolean fair) {
		LeaseLock lock = newLock(fair);
		lock.lock();
		Lock other = other(lock);
		Thread t = newStartedThread(new CheckedRunnable() {
			@Override
			void realRun() {
				assertThat(other.tryLock()).isFalse();
			}
		});

		awaitTermination(t);
		releaseLock(lock);
	}

	/** Timed tryLock on a locked lock times out */
	@Test
	void testTryLock_Timeout() {
		testTryLock_Timeout(false);
	}

	@Test
	void testTryLock_Timeout_fair() {
		testTryLock_Timeout(true);
	}

	void testTryLock_Timeout(boolean fair) {
		LeaseLock lock = newLock(fair);
		long timeoutMillis = timeoutMillis();
		lock.lock();
		Lock other = other(lock);
		Thread t = newStartedThread(new CheckedRunnable() {
			@Override
			void realRun() throws InterruptedException {
				long startTime = System.nanoTime();
				assertThat(other.tryLock(timeoutMillis, MILLISECONDS)).isFalse();
				assertThat(millisElapsedSince(startTime)).isGreaterThanOrEqualTo(timeoutMillis);
			}
		});

		awaitTermination(t);
		releaseLock(lock);
	}

	/** lockInterruptibly succeeds when unlocked, else is interruptible */
	@Test
	void testLockInterruptibly() {
		testLockInterruptibly(false);
	}

	@Test
	void testLockInterruptibly_fair() {
		testLockInterruptibly(true);
	}

	void testLockInterruptibly(boolean fair) {
		LeaseLock lock = newLock(fair);
		try {
			lock.lockInterruptibly();
		}
		catch (InterruptedException fail) {
			threadUnexpectedException(fail);
		}
		assertLockedByMoi(lock);
		Thread t = newStartedThread(new InterruptedLockRunnable(other(lock)));
		waitForQueuedThread(lock, t);
		t.interrupt();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		awaitTermination(t);
		releaseLock(lock);
	}

	/**
	 * toString indicates current lock state (LeaseLock's words: "free" and "held by"
	 * where ReentrantLock says "Unlocked" and "Locked by")
	 */
	@Test
	void testToString() {
		testToString(false);
	}

	@Test
	void testToString_fair() {
		testToString(true);
	}

	void testToString(boolean fair) {
		LeaseLock lock = newLock(fair);
		assertThat(lock.toString()).contains("free");
		lock.lock();
		assertThat(lock.toString()).contains("held by");
		lock.unlock();
		assertThat(lock.toString()).contains("free");
	}

	// ------------------------------------------------------------ LoopHelpers

	/** generates 32 bit pseudo-random numbers (LoopHelpers.compute1) */
	static int compute1(int x) {
		int lo = 16807 * (x & 0xFFFF);
		int hi = 16807 * (x >>> 16);
		lo += (hi & 0x7FFF) << 16;
		if ((lo & 0x80000000) != 0) {
			lo &= 0x7fffffff;
			++lo;
		}
		lo += hi >>> 15;
		if (lo == 0 || (lo & 0x80000000) != 0) {
			lo &= 0x7fffffff;
			++lo;
		}
		return lo;
	}

	/** a linear congruential random number, computed a random number of times */
	static int compute2(int x) {
		int loops = (x >>> 4) & 7;
		while (loops-- > 0) {
			x = (x * 2147483647) % 16807;
		}
		return x;
	}

	// ------------------------------------------------------------ CheckedLockLoops

	/**
	 * CheckedLockLoops' ReentrantLockLoop and FairReentrantLockLoop on 1, 2, 3 and 5
	 * threads: each update of the guarded value under the lock checks the value's twin,
	 * which a second holder at the same time breaks. The JDK runs 3000 updates per thread
	 * count; a network backend runs fewer.
	 */
	@Test
	void checkedLockLoops() throws Exception {
		int maxThreads = 5;
		int iters = 60;
		ExecutorService pool = Executors.newCachedThreadPool();
		try {
			for (int i = 1; i <= maxThreads; i += (i + 1) >>> 1) {
				int v = ThreadLocalRandom.current().nextInt();
				new LockLoop(newLock(false), pool).test(v, i, Math.max(iters / i, 10));
				new LockLoop(newLock(true), pool).test(v, i, Math.max(iters / i, 10));
			}
		}
		finally {
			pool.shutdownNow();
			assertThat(pool.awaitTermination(LONG_DELAY_MS, MILLISECONDS)).isTrue();
		}
	}

	/** CheckedLockLoops.LockLoop with the loop of ReentrantLockLoop. */
	final class LockLoop {

		int value;

		int checkValue;

		int iters;

		volatile int result;

		final AtomicReference<Throwable> failure = new AtomicReference<>();

		final ExecutorService pool;

		final Lock[] locks;

		CyclicBarrier barrier;

		LockLoop(LeaseLock lock, ExecutorService pool) {
			this.locks = new Lock[] { lock, other(lock) };
			this.pool = pool;
		}

		int setValue(int v) {
			this.checkValue = v ^ 0x55555555;
			this.value = v;
			return v;
		}

		int getValue() {
			int v = this.value;
			if (this.checkValue != ~(v ^ 0xAAAAAAAA)) {
				throw new Error("lock protection failure");
			}
			return v;
		}

		void test(int initialValue, int nthreads, int iters) throws Exception {
			setValue(initialValue);
			this.iters = iters;
			this.barrier = new CyclicBarrier(nthreads + 1);
			for (int i = 0; i < nthreads; ++i) {
				int index = i;
				this.pool.execute(() -> run(this.locks[index % 2]));
			}
			this.barrier.await(LONG_DELAY_MS, MILLISECONDS);
			this.barrier.await(LONG_DELAY_MS, MILLISECONDS);
			Throwable failed = this.failure.get();
			if (failed != null) {
				throw new AssertionError(nthreads + " threads: " + failed, failed);
			}
		}

		int loop(Lock lock, int n) {
			int sum = 0;
			int x = 0;
			while (n-- > 0) {
				lock.lock();
				try {
					x = setValue(compute1(getValue()));
				}
				finally {
					lock.unlock();
				}
				sum += compute2(x);
			}
			return sum;
		}

		void run(Lock lock) {
			try {
				this.barrier.await(LONG_DELAY_MS, MILLISECONDS);
				try {
					this.result += loop(lock, this.iters);
				}
				catch (Throwable ex) {
					this.failure.compareAndSet(null, ex);
				}
				this.barrier.await(LONG_DELAY_MS, MILLISECONDS);
			}
			catch (Exception ex) {
				this.failure.compareAndSet(null, ex);
			}
		}

	}

	// ------------------------------------------------------------ CancelledLockLoops

	/**
	 * CancelledLockLoops on 2, 3 and 5 threads: all but two are interrupted while they
	 * loop on lockInterruptibly; each interrupted thread must leave its loop with an
	 * InterruptedException, and exactly two complete.
	 */
	@Test
	void cancelledLockLoops() throws Exception {
		int maxThreads = 5;
		for (int i = 2; i <= maxThreads; i += (i + 1) >>> 1) {
			new CancelledLoops(i, newLock(false)).test();
		}
	}

	final class CancelledLoops {

		private volatile boolean done = false;

		private int v = ThreadLocalRandom.current().nextInt();

		private int completed = 0;

		private volatile int result = 17;

		private final LeaseLock lock;

		private final Lock[] locks;

		private final CyclicBarrier barrier;

		private final int nthreads;

		private volatile Throwable fail = null;

		CancelledLoops(int nthreads, LeaseLock lock) {
			this.nthreads = nthreads;
			this.lock = lock;
			this.locks = new Lock[] { lock, other(lock) };
			this.barrier = new CyclicBarrier(nthreads + 1);
		}

		void test() throws Exception {
			ThreadLocalRandom rnd = ThreadLocalRandom.current();
			Thread[] threads = new Thread[this.nthreads];
			for (int i = 0; i < threads.length; ++i) {
				Lock mine = this.locks[i % 2];
				threads[i] = new Thread(() -> run(mine), "cancelled-" + this.nthreads + "-" + i);
				threads[i].setDaemon(true);
			}
			for (Thread thread : threads) {
				thread.start();
			}
			Thread[] cancels = threads.clone();
			this.barrier.await(LONG_DELAY_MS, MILLISECONDS);
			Thread.sleep(rnd.nextInt(5));
			for (int i = 0; i < cancels.length - 2; ++i) {
				cancels[i].interrupt();
				// make sure all OK even when cancellations spaced out
				if ((i & 3) == 0) {
					Thread.sleep(1 + rnd.nextInt(5));
				}
			}
			this.done = true;
			this.barrier.await(LONG_DELAY_MS, MILLISECONDS);

			int c;
			this.lock.lock();
			try {
				c = this.completed;
			}
			finally {
				this.lock.unlock();
			}
			if (this.fail != null) {
				throw new AssertionError(this.nthreads + " threads: " + this.fail, this.fail);
			}
			assertThat(c).as("completed of %d threads, %d interrupted", this.nthreads, this.nthreads - 2).isEqualTo(2);
		}

		void run(Lock lock) {
			try {
				this.barrier.await(LONG_DELAY_MS, MILLISECONDS);
				boolean interrupted = false;
				int sum = this.v;
				int x = 0;
				while (!this.done || Thread.currentThread().isInterrupted()) {
					try {
						lock.lockInterruptibly();
					}
					catch (InterruptedException ie) {
						interrupted = true;
						break;
					}
					try {
						this.v = x = compute1(this.v);
					}
					finally {
						lock.unlock();
					}
					sum += compute2(x);
				}
				if (!interrupted) {
					lock.lock();
					try {
						++this.completed;
					}
					finally {
						lock.unlock();
					}
				}
				this.barrier.await(LONG_DELAY_MS, MILLISECONDS);
				this.result += sum;
			}
			catch (Throwable ex) {
				this.fail = ex;
			}
		}

	}

}
