package dev.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import dev.distlock.core.Lease;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.integration.DistlockLockRegistry;
import dev.distlock.integration.LeaseLock;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.LockHistory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.integration.support.locks.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@link DistlockLockRegistry}, its {@link LeaseLock}s and a plain {@link LeaseLock}
 * on every backend, each "process" a template over a provider with its own client: mutual
 * exclusion across processes and threads checked as a recorded history, re-entry,
 * ownership by thread, renewal, time-to-live, tryLock timeouts and the end of a lost
 * hold.
 */
@Timeout(120)
class DistlockLockRegistryTests {

	private static IntegrationTestServers servers;

	private static final LocalLockProvider LOCAL_STORE = new LocalLockProvider();

	private final String key = "registry-" + UUID.randomUUID().toString().substring(0, 8);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@BeforeAll
	static void startServers() throws Exception {
		servers = new IntegrationTestServers();
	}

	@AfterAll
	static void stopServers() throws Exception {
		servers.close();
	}

	@AfterEach
	void close() throws Exception {
		this.threads.shutdownNow();
		this.threads.awaitTermination(10, TimeUnit.SECONDS);
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			this.closeables.get(i).close();
		}
	}

	/**
	 * A registry in a new "process": its own template over its own provider and client.
	 */
	private DistlockLockRegistry process(String backend) throws Exception {
		return new DistlockLockRegistry(template(backend));
	}

	private LockTemplate template(String backend) throws Exception {
		LockProvider<?> provider;
		if (backend.equals("local")) {
			provider = new LocalLockProvider(LOCAL_STORE);
			this.closeables.add(provider::close);
		}
		else {
			LeaderTestBackends.Backend client = servers.backend(backend, Duration.ofSeconds(5));
			this.closeables.add(client);
			provider = client.provider();
		}
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix("si-registry:"), List.of());
		this.closeables.add(template);
		return template;
	}

	private static long token(Lock lock) {
		return ((LeaseLock) lock).lease().map(Lease::fencingToken).orElseThrow();
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis", "redisson", "jdbc", "zookeeper" })
	void oneHolderAtATimeAcrossProcessesAndThreadsWithReentryAndRisingTokens(String backend) throws Exception {
		// the first process locks through the registry, the second through a plain
		// LeaseLock its threads share
		DistlockLockRegistry registry = process(backend);
		LeaseLock shared = new LeaseLock(template(backend), this.key);
		LockHistory history = new LockHistory();
		List<Future<?>> workers = new ArrayList<>();
		for (int p = 0; p < 2; p++) {
			for (int t = 0; t < 2; t++) {
				boolean viaRegistry = p == 0;
				String holder = "process-" + p + "/thread-" + t;
				int variant = t;
				workers.add(this.threads.submit(() -> {
					for (int i = 0; i < 15; i++) {
						Lock lock = viaRegistry ? registry.obtain(this.key) : shared;
						long requested = System.nanoTime();
						if (variant == 0) {
							lock.lockInterruptibly();
						}
						else {
							assertThat(lock.tryLock(20, TimeUnit.SECONDS)).as("tryLock within 20 s").isTrue();
						}
						long start = System.nanoTime();
						long token = token(lock);
						assertThat(lock.tryLock()).as("re-entry by the holding thread").isTrue();
						assertThat(token(lock)).as("the token of a re-entered hold").isEqualTo(token);
						lock.unlock();
						assertThat(((LeaseLock) lock).isHeldByCurrentThread()).as("held after the inner unlock")
							.isTrue();
						Thread.sleep(2);
						history.record(new LockHistory.Hold(this.key, LockType.MUTEX, 1, token, holder, requested,
								start, System.nanoTime()));
						lock.unlock();
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(100, TimeUnit.SECONDS);
		}
		assertThat(history.size()).isEqualTo(60);
		history.assertConsistent();
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis", "redisson", "jdbc", "zookeeper" })
	void lockBelongsToItsThreadWhichAloneUnlocksAndRenewsIt(String backend) throws Exception {
		DistlockLockRegistry registry = process(backend);
		DistlockLockRegistry other = process(backend);
		DistributedLock lock = registry.obtain(this.key);
		assertThat(registry.obtain(this.key)).as("the same lock for the same key").isSameAs(lock);
		lock.lock(Duration.ofSeconds(2));
		Instant before = ((LeaseLock) lock).lease().orElseThrow().expiresAt();
		registry.renewLock(this.key, Duration.ofSeconds(20));
		assertThat(((LeaseLock) lock).lease().orElseThrow().expiresAt()).as("expiry after renewLock")
			.isAfter(before.plusSeconds(10));
		registry.renewLock(this.key);
		this.threads.submit(() -> {
			assertThatExceptionOfType(IllegalStateException.class).as("unlock by another thread")
				.isThrownBy(lock::unlock)
				.withMessageContaining("You do not own lock at");
			assertThatExceptionOfType(IllegalStateException.class).as("renewLock by another thread")
				.isThrownBy(() -> registry.renewLock(this.key));
			assertThat(lock.tryLock()).as("tryLock by another thread of the process").isFalse();
			return null;
		}).get(10, TimeUnit.SECONDS);
		DistributedLock elsewhere = other.obtain(this.key);
		long waited = System.nanoTime();
		assertThat(elsewhere.tryLock(Duration.ofMillis(300), Duration.ofSeconds(5)))
			.as("tryLock of another process while held")
			.isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - waited)).as("how long tryLock waited")
			.isGreaterThanOrEqualTo(Duration.ofMillis(300))
			.isLessThan(Duration.ofMillis(2300));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::newCondition)
			.withMessageContaining("has no conditions");
		long token = token(lock);
		lock.unlock();
		assertThatExceptionOfType(IllegalStateException.class).as("unlock of a free lock")
			.isThrownBy(lock::unlock)
			.withMessageContaining("You do not own lock at");
		assertThat(elsewhere.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(5))).as("tryLock after the unlock")
			.isTrue();
		assertThat(token(elsewhere)).as("the next holder's token").isGreaterThan(token);
		elsewhere.unlock();
	}

	@ParameterizedTest
	@ValueSource(strings = { "local", "redis", "redisson", "jdbc", "zookeeper" })
	void holdWhoseTimeToLiveRanOutIsNotReenteredButEndedThenAcquiredAnew(String backend) throws Exception {
		DistlockLockRegistry registry = process(backend);
		DistributedLock lock = registry.obtain(this.key);
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		long token = token(lock);
		Thread.sleep(700);
		assertThat(lock.tryLock()).as("re-entry of a hold whose time to live ran out").isFalse();
		assertThat(((LeaseLock) lock).isHeldByCurrentThread()).as("the lost hold is ended").isFalse();
		assertThat(lock.tryLock()).as("the next attempt acquires anew").isTrue();
		assertThat(token(lock)).isGreaterThan(token);
		lock.unlock();

		lock.lock(Duration.ofMillis(300));
		Thread.sleep(700);
		assertThatExceptionOfType(ConcurrentModificationException.class)
			.as("unlock of a hold whose time to live ran out")
			.isThrownBy(lock::unlock)
			.withMessageContaining("Lock was released in the store due to expiration.");
		assertThat(((LeaseLock) lock).isHeldByCurrentThread()).isFalse();
	}

}
