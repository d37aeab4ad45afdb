package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Redisson backend promises beyond the shared contract: ownership by a synthetic
 * owner id (release from another thread, no confusion with Redisson's thread-owned
 * locks), leases that Redisson's own watchdog leaves alone, owner-checked renewal,
 * abandoned fair waiters leaving the queue, tokens from the key's counter, and the
 * semaphore capacity rule.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonLockProviderTests {

	private final String prefix = "rt:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final ExecutorService acquirer = Executors.newSingleThreadExecutor();

	private final ExecutorService releaser = Executors.newSingleThreadExecutor();

	private final RedissonClient admin = client();

	@AfterEach
	void close() throws InterruptedException {
		this.acquirer.shutdownNow();
		this.releaser.shutdownNow();
		this.templates.forEach(LockTemplate::close);
		// fencing counters and semaphore sizes outlive their locks by design; tests leave
		// none behind
		this.admin.getKeys().deleteByPattern("*" + this.prefix + "*");
		this.clients.forEach(RedissonClients::shutdown);
	}

	private RedissonClient client() {
		RedissonClient client = RedissonClients.shared();
		this.clients.add(client);
		return client;
	}

	private RedissonLockProvider provider() {
		return new RedissonLockProvider(client());
	}

	private LockTemplate process() {
		RedissonLockProvider provider = provider();
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix(this.prefix)
			.withWatchdog(Duration.ofMillis(1500), Duration.ofMillis(500));
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(), settings, List.of());
		this.templates.add(template);
		return template;
	}

	private LockAttempt attempt(String key, LockType type, Duration lease) {
		return new LockAttempt(this.prefix + key, type, (type == LockType.SEMAPHORE) ? 1 : 1, lease,
				"test:" + UUID.randomUUID());
	}

	private static String mutexName(LockAttempt attempt) {
		return RedissonLockKeys.of(attempt.key(), LockType.MUTEX).lock();
	}

	private static LockRequest request(String key, LockType type, Duration wait) {
		return LockRequest.builder(key).type(type).waitTime(wait).build();
	}

	private static LockType blocker(LockType type) {
		return (type == LockType.READ) ? LockType.WRITE : type;
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void leaseTakenOnOneThreadIsReleasedOnAnother(LockType type) throws Exception {
		LockTemplate owner = process();
		LockTemplate other = process();
		String key = "cross-" + type;
		AtomicReference<Thread> acquiredOn = new AtomicReference<>();
		Lease lease = this.acquirer.submit(() -> {
			acquiredOn.set(Thread.currentThread());
			return owner.acquire(request(key, type, Duration.ZERO));
		}).get(10, TimeUnit.SECONDS);
		assertThat(other.tryAcquire(request(key, blocker(type), Duration.ZERO))).as("held").isEmpty();
		Thread releasedOn = this.releaser.submit(() -> {
			lease.release();
			return Thread.currentThread();
		}).get(10, TimeUnit.SECONDS);
		assertThat(releasedOn).isNotSameAs(acquiredOn.get());
		assertThat(lease.isValid()).isFalse();
		other.tryAcquire(request(key, blocker(type), Duration.ZERO))
			.orElseThrow(() -> new AssertionError(type + " released from another thread is free"))
			.release();
	}

	@Test
	void providerReleasesFromAnotherThreadThanTheOneThatAcquired() throws Exception {
		RedissonLockProvider provider = provider();
		LockAttempt attempt = attempt("raw-cross", LockType.MUTEX, Duration.ofSeconds(30));
		RedissonHeldLock held = this.acquirer.submit(() -> provider.acquire(attempt, LockWaiter.tryOnce()))
			.get(10, TimeUnit.SECONDS);
		assertThat(this.admin.getKeys().countExists(mutexName(attempt))).isEqualTo(1);
		this.releaser.submit(() -> {
			provider.release(held);
			return null;
		}).get(10, TimeUnit.SECONDS);
		assertThat(this.admin.getKeys().countExists(mutexName(attempt))).as("deleted by the other thread's release")
			.isZero();
	}

	@Test
	void ownerIsASyntheticIdNotTheThreadSoRedissonsThreadLocksStayOut() throws Exception {
		RedissonClient client = client();
		RedissonLockProvider provider = new RedissonLockProvider(client);
		LockAttempt attempt = attempt("owner", LockType.MUTEX, Duration.ofSeconds(30));
		RedissonHeldLock held = provider.acquire(attempt, LockWaiter.tryOnce());
		Collection<Object> fields = this.admin
			.getMap(mutexName(attempt), org.redisson.client.codec.StringCodec.INSTANCE)
			.keySet();
		assertThat(fields).singleElement()
			.asString()
			.startsWith(client.getId() + ":-")
			.doesNotEndWith(":" + Thread.currentThread().getId());
		assertThat(client.getLock(mutexName(attempt)).tryLock())
			.as("the same client's RLock on the same thread is not taken for a re-entry")
			.isFalse();
		String counter = RedissonLockKeys.of(attempt.key(), LockType.MUTEX).fence();
		assertThat(this.admin.getBucket(counter, org.redisson.client.codec.StringCodec.INSTANCE).get())
			.as("the token is the key's counter")
			.isEqualTo(String.valueOf(held.fencingToken()));
		assertThat(held.fencingToken()).as("never below the server clock in microseconds")
			.isGreaterThan(TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis() - 60_000));
		provider.release(held);
		assertThat(client.getLock(mutexName(attempt)).tryLock()).isTrue();
		client.getLock(mutexName(attempt)).unlock();
	}

	@Test
	void mutexReleaseWakesRedissonsWaitersAndLeavesNoUnlockLatch() throws Exception {
		RedissonLockProvider provider = provider();
		LockAttempt attempt = attempt("wake", LockType.MUTEX, Duration.ofSeconds(30));
		RedissonHeldLock held = provider.acquire(attempt, LockWaiter.tryOnce());
		org.redisson.api.RLock waiter = client().getLock(mutexName(attempt));
		// Redisson's waiter sleeps until the holder's lease ends (30 s) unless an unlock
		// message on the lock's channel wakes it: its wait of 10 s only succeeds if the
		// release sends one
		java.util.concurrent.Future<Boolean> waited = this.acquirer
			.submit(() -> waiter.tryLock(10, 5, TimeUnit.SECONDS));
		awaitTrue("the RLock waits",
				() -> this.admin.getTopic("redisson_lock__channel:" + mutexName(attempt)).countSubscribers() > 0);
		provider.release(held);
		assertThat(waited.get(10, TimeUnit.SECONDS)).as("woken by the release").isTrue();
		assertThat(this.admin.getKeys().getKeysByPattern("redisson_unlock_latch:*" + this.prefix + "*"))
			.as("a release writes no unlock latch")
			.isEmpty();
		provider.release(held);
		assertThat(this.admin.getKeys().countExists(mutexName(attempt)))
			.as("a second release is owner-checked: the RLock holder keeps the lock")
			.isEqualTo(1);
	}

	@Test
	void mutexWaiterWhoseWakeUpIsLostStillGetsTheLockWithinASlice() throws Exception {
		RedissonLockProvider provider = provider();
		LockAttempt attempt = attempt("lost-wakeup", LockType.MUTEX, Duration.ofSeconds(30));
		RedissonHeldLock held = provider.acquire(attempt, LockWaiter.tryOnce());
		assertThat(held).isNotNull();
		LockTemplate waiter = process();
		long start = System.nanoTime();
		java.util.concurrent.Future<Lease> waited = this.acquirer
			.submit(() -> waiter.acquire(request("lost-wakeup", LockType.MUTEX, Duration.ofSeconds(10))));
		awaitTrue("the waiter listens for the release",
				() -> this.admin.getTopic("redisson_lock__channel:" + mutexName(attempt)).countSubscribers() > 0);
		// the lock goes without an unlock message, as when a waiter misses it: Redisson
		// alone would wait out the holder's 30 s lease, longer than the 10 s wait
		this.admin.getKeys().delete(mutexName(attempt));
		Lease lease = waited.get(10, TimeUnit.SECONDS);
		long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(waitedMillis).as("ms until the lock was taken").isLessThan(5000);
		lease.release();
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void redissonsWatchdogStaysOffSoAnUnrenewedLeaseEnds(LockType type) throws Exception {
		RedissonLockProvider provider = provider();
		RedissonHeldLock granted = provider.acquire(attempt("nowatchdog-" + type, type, Duration.ofMillis(600)),
				LockWaiter.tryOnce());
		assertThat(granted).isNotNull();
		Thread.sleep(1500);
		RedissonLockProvider other = provider();
		RedissonHeldLock next = other.acquire(attempt("nowatchdog-" + type, blocker(type), Duration.ofSeconds(5)),
				LockWaiter.tryOnce());
		assertThat(next).as("free once the lease ran out, nobody renewed it").isNotNull();
		assertThat(next.fencingToken()).isGreaterThan(granted.fencingToken());
		other.release(next);
		provider.release(granted);
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void renewExtendsOnlyWhileTheOwnerHolds(LockType type) throws Exception {
		RedissonLockProvider provider = provider();
		LockAttempt attempt = attempt("renew-" + type, type, Duration.ofMillis(700));
		RedissonHeldLock held = provider.acquire(attempt, LockWaiter.tryOnce());
		assertThat(provider.renew(held, Duration.ofSeconds(5))).isTrue();
		Thread.sleep(1200);
		RedissonLockProvider other = provider();
		assertThat(other.acquire(attempt("renew-" + type, blocker(type), Duration.ofSeconds(5)), LockWaiter.tryOnce()))
			.as("held past the first lease")
			.isNull();
		List<String> keys = RedissonClients.keysOf(attempt.key(), type);
		this.admin.getKeys().delete(keys.toArray(String[]::new));
		assertThat(provider.renew(held, Duration.ofSeconds(5))).as("renewal after the lock was deleted").isFalse();
		provider.release(held);
	}

	@Test
	void renewOfAReaderKeepsItsHoldKeyAlive() throws Exception {
		RedissonClient client = client();
		RedissonLockProvider provider = new RedissonLockProvider(client);
		LockAttempt attempt = attempt("reader", LockType.READ, Duration.ofMillis(500));
		RedissonHeldLock held = provider.acquire(attempt, LockWaiter.tryOnce());
		RedissonLockKeys keys = RedissonLockKeys.of(attempt.key(), LockType.READ);
		String name = keys.lock();
		String holdKey = keys.readHolds(client.getId() + ":" + held.ownerId()) + ":1";
		assertThat(this.admin.getKeys().countExists(holdKey)).as("Redisson's per-hold key " + holdKey).isEqualTo(1);
		assertThat(provider.renew(held, Duration.ofSeconds(10))).isTrue();
		assertThat(this.admin.getKeys().remainTimeToLive(holdKey)).isGreaterThan(5000);
		assertThat(this.admin.getKeys().remainTimeToLive(name)).isGreaterThan(5000);
		provider.release(held);
		assertThat(this.admin.getKeys().countExists(name, holdKey)).isZero();
	}

	@Test
	void interruptedFairWaiterLeavesTheQueue() throws Exception {
		LockTemplate holder = process();
		LockTemplate waiting = process();
		String key = "fairqueue";
		String queue = RedissonLockKeys.of(this.prefix + key, LockType.FAIR).fairQueue();
		Lease held = holder.acquire(request(key, LockType.FAIR, Duration.ZERO));
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				waiting.acquire(request(key, LockType.FAIR, Duration.ofSeconds(30))).release();
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		});
		waiter.start();
		awaitTrue("the waiter is queued", () -> this.admin.getList(queue).size() == 1);
		waiter.interrupt();
		waiter.join(10_000);
		assertThat(outcome.get()).isInstanceOf(LockAcquisitionException.class);
		awaitTrue("the abandoned waiter left the queue", () -> this.admin.getList(queue).size() == 0);
		held.release();
		process().tryAcquire(request(key, LockType.FAIR, Duration.ZERO))
			.orElseThrow(() -> new AssertionError("no ghost waiter ahead in the queue"))
			.release();
	}

	@Test
	void semaphoreCapacityIsFixedByTheFirstRequest() {
		LockTemplate process = process();
		LockRequest two = LockRequest.builder("capacity")
			.type(LockType.SEMAPHORE)
			.permits(2)
			.waitTime(Duration.ZERO)
			.build();
		LockRequest five = LockRequest.builder("capacity")
			.type(LockType.SEMAPHORE)
			.permits(5)
			.waitTime(Duration.ZERO)
			.build();
		Lease a = process.acquire(two);
		Lease b = process.acquire(five);
		assertThat(process.tryAcquire(five)).as("a third permit of a semaphore created with two").isEmpty();
		a.release();
		b.release();
	}

	@Test
	void abandonAfterAnInterruptedWaitReleasesWhatRedissonGrantsLater() throws Exception {
		LockTemplate holder = process();
		LockTemplate waiting = process();
		String key = "late";
		Lease held = holder.acquire(request(key, LockType.MUTEX, Duration.ZERO));
		Thread waiter = new Thread(() -> {
			try {
				waiting.acquire(request(key, LockType.MUTEX, Duration.ofSeconds(30)));
			}
			catch (LockAcquisitionException ex) {
				// expected: interrupted
			}
		});
		waiter.start();
		Thread.sleep(300);
		waiter.interrupt();
		waiter.join(10_000);
		held.release();
		Thread.sleep(300);
		process().tryAcquire(request(key, LockType.MUTEX, Duration.ZERO))
			.orElseThrow(() -> new AssertionError("the interrupted waiter must not take the lock after giving up"))
			.release();
	}

	private static void awaitTrue(String what, java.util.function.BooleanSupplier condition)
			throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for: " + what);
			}
			Thread.sleep(20);
		}
	}

}
