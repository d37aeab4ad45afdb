package dev.distlock.integration;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import dev.distlock.core.Lease;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.integration.support.locks.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The registry knows who holds its locks: an {@code unlock()} by a thread that does not
 * hold a lock throws Spring Integration's {@link IllegalStateException} and changes
 * nothing, so the holder can still obtain the same lock after its other references are
 * collected, renew it and unlock it; the {@code unlock()} of a hold whose lease ran out
 * throws Spring Integration's {@link ConcurrentModificationException}.
 */
@Timeout(60)
class DistlockLockRegistryHoldersTests {

	private final LocalLockProvider provider = new LocalLockProvider();

	private final LockTemplate template = new LockTemplate(List.of(this.provider), this.provider.name(),
			LockSettings.defaults(), List.of());

	private final DistlockLockRegistry registry = new DistlockLockRegistry(this.template);

	private final ExecutorService holder = Executors.newSingleThreadExecutor();

	private final String key = "holders-" + UUID.randomUUID();

	@AfterEach
	void close() throws Exception {
		this.holder.shutdownNow();
		this.holder.awaitTermination(10, TimeUnit.SECONDS);
		this.template.close();
		this.provider.close();
	}

	@Test
	void aNonHoldersUnlockChangesNothingAndTheHolderKeepsItsLockThroughGarbageCollection() throws Exception {
		CountDownLatch locked = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		// the holder keeps no reference to its lock: it obtains it again to renew and
		// unlock it, as an aggregator does
		Future<Long> held = this.holder.submit(() -> {
			this.registry.obtain(this.key).lock();
			long token = ((LeaseLock) this.registry.obtain(this.key)).lease().orElseThrow().fencingToken();
			locked.countDown();
			finish.await();
			this.registry.renewLock(this.key);
			this.registry.renewLock(this.key, Duration.ofSeconds(20));
			Lease lease = ((LeaseLock) this.registry.obtain(this.key)).lease().orElseThrow();
			assertThat(lease.fencingToken()).isEqualTo(token);
			this.registry.obtain(this.key).unlock();
			return token;
		});
		assertThat(locked.await(20, TimeUnit.SECONDS)).isTrue();
		Lock lock = this.registry.obtain(this.key);
		assertThatThrownBy(lock::unlock).as("unlock by a thread that does not hold the lock")
			.isInstanceOf(RuntimeException.class);
		assertThat(lock.tryLock()).as("the lock is still held by its holder").isFalse();
		WeakReference<Lock> probe = new WeakReference<>(lock);
		// a lock nobody holds or references is collected by the same loop
		WeakReference<Lock> unreferenced = new WeakReference<>(this.registry.obtain(this.key + "-other"));
		lock = null;
		collect(unreferenced);
		assertThat(probe.get()).as("held lock kept by the registry after a non-holder's unlock").isNotNull();
		assertThat(this.registry.obtain(this.key)).isSameAs(probe.get());
		finish.countDown();
		long token = held.get(20, TimeUnit.SECONDS);
		Lock again = this.registry.obtain(this.key);
		assertThat(again.tryLock()).as("free after its holder unlocked").isTrue();
		try {
			assertThat(((LeaseLock) again).lease().orElseThrow().fencingToken()).isGreaterThan(token);
		}
		finally {
			again.unlock();
		}
	}

	@Test
	void aNonHoldersUnlockThrowsIllegalStateException() throws Exception {
		Lock lock = this.registry.obtain(this.key);
		lock.lock();
		try {
			assertThat(this.holder.submit(() -> catchThrowable(lock::unlock)).get(20, TimeUnit.SECONDS))
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("You do not own lock at " + this.key);
			assertThat(((LeaseLock) lock).lease()).as("still held by its holder").isPresent();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void theUnlockOfAHoldWhoseLeaseRanOutThrowsConcurrentModificationException() throws Exception {
		DistributedLock lock = this.registry.obtain(this.key);
		lock.lock(Duration.ofMillis(100));
		Lease lease = ((LeaseLock) lock).lease().orElseThrow();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (lease.isValid() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(lease.isValid()).isFalse();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock)
			.withMessageContaining("Lock was released in the store due to expiration.");
		// the hold is ended: this thread does not own it any more, and it is free
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(lock::unlock)
			.withMessageContaining("You do not own lock at");
		assertThat(this.holder.submit(() -> {
			boolean acquired = this.registry.obtain(this.key).tryLock();
			if (acquired) {
				this.registry.obtain(this.key).unlock();
			}
			return acquired;
		}).get(20, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void renewingALockNotHeldThrowsIllegalStateException() {
		this.registry.obtain(this.key);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.registry.renewLock(this.key));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.registry.renewLock(this.key, Duration.ofSeconds(1)));
	}

	private static void collect(WeakReference<?> reference) throws InterruptedException {
		for (int i = 0; i < 200 && reference.get() != null; i++) {
			System.gc();
			Thread.sleep(10);
		}
		assertThat(reference.get()).as("an unreferenced lock collected").isNull();
	}

}
