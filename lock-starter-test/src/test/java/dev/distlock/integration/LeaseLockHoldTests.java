package dev.distlock.integration;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several threads on one {@link LeaseLock} object, each with a hold of its own: a thread
 * whose fixed lease ran out while it worked, after the next thread took the lock, neither
 * releases nor re-enters the next thread's lease, and learns of its loss by an
 * {@link IllegalStateException}. Checked on the backend through another process that
 * finds the key still held, and through the next holder's owner-checked extension.
 */
@Timeout(180)
class LeaseLockHoldTests {

	/** A lease that runs out while its thread works. */
	private static final Duration SHORT = Duration.ofMillis(1500);

	private static final Duration LONG = Duration.ofSeconds(30);

	private static LeaseLockBackends backends;

	private final String key = "hold-" + UUID.randomUUID().toString().substring(0, 8);

	private final ExecutorService threadA = Executors.newSingleThreadExecutor((task) -> new Thread(task, "A"));

	private final ExecutorService threadB = Executors.newSingleThreadExecutor((task) -> new Thread(task, "B"));

	@BeforeAll
	static void startBackends() {
		backends = new LeaseLockBackends();
	}

	@AfterAll
	static void closeBackends() throws Exception {
		backends.close();
	}

	@AfterEach
	void stopThreads() throws InterruptedException {
		this.threadA.shutdownNow();
		this.threadB.shutdownNow();
		this.threadA.awaitTermination(10, TimeUnit.SECONDS);
		this.threadB.awaitTermination(10, TimeUnit.SECONDS);
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis", "redisson", "postgres", "mariadb", "h2", "zookeeper", "etcd" })
	void aLateUnlockAfterTheLeaseRanOutThrowsIllegalStateAndLeavesTheNextHoldersLease(String backend) throws Exception {
		LockTemplate other = backends.process(backend);
		FixedLeaseLock lock = new FixedLeaseLock(backends.process(backend), this.key);
		Lease a = on(this.threadA, () -> lock.acquired(SHORT));
		Lease b = on(this.threadB, () -> lock.acquired(LONG));
		assertThat(a.isValid()).as("A's lease, run out").isFalse();
		assertThat(b.fencingToken()).as("B's token").isGreaterThan(a.fencingToken());

		assertThat(on(this.threadA, lock::lease)).as("the lease A sees").containsSame(a);
		Throwable unlocked = on(this.threadA, () -> thrownBy(lock::unlock));
		assertThat(unlocked).as("A's late unlock").isExactlyInstanceOf(IllegalStateException.class);
		assertThat(on(this.threadA, lock::isHeldByCurrentThread)).as("A holds after its unlock").isFalse();

		assertHeldByB(other, lock, b);
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis", "redisson", "postgres", "mariadb", "h2", "zookeeper", "etcd" })
	void aReentrantLockAfterTheLeaseRanOutDoesNotEnterTheNextHoldersLease(String backend) throws Exception {
		LockTemplate other = backends.process(backend);
		FixedLeaseLock lock = new FixedLeaseLock(backends.process(backend), this.key);
		Lease a = on(this.threadA, () -> lock.acquired(SHORT));
		Lease b = on(this.threadB, () -> lock.acquired(LONG));
		assertThat(a.isValid()).as("A's lease, run out").isFalse();

		Throwable relocked = on(this.threadA, () -> thrownBy(lock::lock));
		assertThat(relocked).as("A's re-entrant lock() after its lease ran out")
			.isExactlyInstanceOf(IllegalStateException.class);
		assertThat(on(this.threadA, lock::isHeldByCurrentThread)).as("A holds after the refused re-entry").isFalse();
		assertThat(on(this.threadA, lock::lease)).as("the lease A sees after the refused re-entry").isEmpty();

		assertHeldByB(other, lock, b);
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis", "redisson", "postgres", "mariadb", "h2", "zookeeper", "etcd" })
	void aReentrantTryLockAfterTheLeaseRanOutFailsAndLeavesTheNextHoldersLease(String backend) throws Exception {
		LockTemplate other = backends.process(backend);
		FixedLeaseLock lock = new FixedLeaseLock(backends.process(backend), this.key);
		Lease a = on(this.threadA, () -> lock.acquired(SHORT));
		Lease b = on(this.threadB, () -> lock.acquired(LONG));
		assertThat(a.isValid()).as("A's lease, run out").isFalse();

		Boolean reentered = on(this.threadA, () -> lock.tryLock());
		assertThat(reentered).as("A's re-entrant tryLock() after its lease ran out").isFalse();
		assertThat(on(this.threadA, lock::isHeldByCurrentThread)).as("A holds after the refused re-entry").isFalse();
		assertThat(on(this.threadA, () -> thrownBy(lock::unlock))).as("A's unlock once its hold ended")
			.isExactlyInstanceOf(IllegalMonitorStateException.class);

		assertHeldByB(other, lock, b);
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis" })
	void anUnlockByAThreadThatNeverHeldThrowsIllegalMonitorStateAndLeavesTheHolder(String backend) throws Exception {
		LockTemplate other = backends.process(backend);
		FixedLeaseLock lock = new FixedLeaseLock(backends.process(backend), this.key);
		Lease b = on(this.threadB, () -> lock.acquired(LONG));
		assertThat(on(this.threadA, () -> thrownBy(lock::unlock))).as("unlock by a thread that never held")
			.isExactlyInstanceOf(IllegalMonitorStateException.class);
		assertThat(on(this.threadA, lock::lease)).as("the lease a non-holder sees").isEmpty();
		assertHeldByB(other, lock, b);
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis" })
	void tryLockOnAnInterruptedThreadAcquiresAndKeepsTheInterrupt(String backend) throws Exception {
		LeaseLock lock = new LeaseLock(backends.process(backend), this.key);
		on(this.threadA, () -> {
			Thread.currentThread().interrupt();
			assertThat(lock.tryLock()).as("tryLock() of an interrupted thread on a free lock").isTrue();
			assertThat(Thread.interrupted()).as("interrupt status after tryLock()").isTrue();
			lock.unlock();
			return null;
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis" })
	void lockOnAnInterruptedThreadAcquiresAndKeepsTheInterrupt(String backend) throws Exception {
		LeaseLock lock = new LeaseLock(backends.process(backend), this.key);
		on(this.threadA, () -> {
			Thread.currentThread().interrupt();
			lock.lock();
			assertThat(lock.isHeldByCurrentThread()).as("held after lock() of an interrupted thread").isTrue();
			assertThat(Thread.interrupted()).as("interrupt status after lock()").isTrue();
			lock.unlock();
			return null;
		});
	}

	/**
	 * B's lease stands: B holds and sees its own lease, another process finds the key
	 * held, B's owner-checked extension passes on the backend, and B's unlock is clean;
	 * then the other process gets the key with a higher token.
	 */
	private void assertHeldByB(LockTemplate other, FixedLeaseLock lock, Lease b) throws Exception {
		assertThat(b.isValid()).as("B's lease").isTrue();
		assertThat(on(this.threadB, lock::lease)).as("the lease B sees").containsSame(b);
		Optional<Lease> meanwhile = other.tryAcquire(LockRequest.builder(this.key).waitTime(Duration.ZERO).build());
		meanwhile.ifPresent(Lease::release);
		assertThat(meanwhile).as("another process's attempt while B holds").isEmpty();
		assertThat(on(this.threadB, () -> thrownBy(() -> b.extend(LONG))))
			.as("B's owner-checked extension on the backend")
			.isNull();
		assertThat(on(this.threadB, () -> thrownBy(lock::unlock))).as("B's unlock").isNull();
		try (Lease after = other.acquire(LockRequest.builder(this.key).waitTime(Duration.ofSeconds(20)).build())) {
			assertThat(after.fencingToken()).as("the other process's token after B").isGreaterThan(b.fencingToken());
		}
	}

	private static <T> T on(ExecutorService thread, Callable<T> step) throws Exception {
		return thread.submit(step).get(60, TimeUnit.SECONDS);
	}

	private static @Nullable Throwable thrownBy(Runnable action) {
		try {
			action.run();
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	/**
	 * A {@link LeaseLock} whose acquisitions choose their fixed lease, as Spring
	 * Integration's time-to-live {@code tryLock} does.
	 */
	static final class FixedLeaseLock extends LeaseLock {

		FixedLeaseLock(LockTemplate template, String key) {
			super(template, key);
		}

		/** Acquires within 30 s with the given lease and returns the thread's lease. */
		Lease acquired(Duration lease) throws InterruptedException {
			assertThat(acquire(Duration.ofSeconds(30), lease)).as("acquired within 30 s").isTrue();
			return lease().orElseThrow();
		}

	}

}
