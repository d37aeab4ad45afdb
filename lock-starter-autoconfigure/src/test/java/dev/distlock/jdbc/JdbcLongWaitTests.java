package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.stream.Stream;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.integration.DistlockLockRegistry;
import dev.distlock.integration.LeaseLock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wait longer than a database's own lock timeout can express ({@code lock_timeout} and
 * {@code LOCK_TIMEOUT} stop at {@code Integer.MAX_VALUE} ms, about 24.8 days;
 * {@code max_statement_time} at a year) is a wait like any other: a free key is acquired
 * at once and a held key is granted when its holder releases, through
 * {@link LeaseLock#tryLock(long, TimeUnit)}, {@link LockTemplate} and the Spring
 * Integration registry, on every database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcLongWaitTests {

	private static final Duration LONGEST = Duration.ofMillis(Long.MAX_VALUE);

	private final JdbcTestDatabases databases = JdbcTestDatabases.all();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final Map<String, LockTemplate> templates = new ConcurrentHashMap<>();

	private final List<JdbcLockProvider> providers = new CopyOnWriteArrayList<>();

	@BeforeAll
	void createTemplates() {
		for (String database : List.of("h2", "postgresql", "mariadb")) {
			JdbcLockProvider provider = this.databases.get(database).provider().cleanupInterval(Duration.ZERO).build();
			this.providers.add(provider);
			this.templates.put(database,
					new LockTemplate(List.of(provider), "jdbc", LockSettings.defaults().withKeyPrefix(""), List.of()));
		}
	}

	@AfterAll
	void close() {
		this.executor.shutdownNow();
		this.templates.values().forEach(LockTemplate::close);
		this.providers.forEach(JdbcLockProvider::close);
		this.databases.close();
	}

	static Stream<Arguments> cases() {
		return Stream.of("h2", "postgresql", "mariadb")
			.flatMap((database) -> Stream.of("LeaseLock", "LockTemplate", "DistlockLockRegistry")
				.map((path) -> Arguments.of(database, path)));
	}

	@ParameterizedTest(name = "{0} through {1}")
	@MethodSource("cases")
	void aFreeKeyWithTheLongestWaitIsAcquired(String database, String path) throws Exception {
		LockTemplate template = this.templates.get(database);
		String key = "long-wait-" + UUID.randomUUID();
		Future<Boolean> acquired = this.executor.submit(() -> acquireAndRelease(template, path, key, null));
		assertThat(acquired.get(30, TimeUnit.SECONDS))
			.as("%s: free key acquired with a wait of Long.MAX_VALUE ms", database)
			.isTrue();
	}

	@ParameterizedTest(name = "{0} through {1}")
	@MethodSource("cases")
	void aHeldKeyWithAHugeWaitIsGrantedOnRelease(String database, String path) throws Exception {
		LockTemplate template = this.templates.get(database);
		String key = "long-wait-" + UUID.randomUUID();
		Lease holder = template.acquire(LockRequest.builder(key).waitTime(Duration.ZERO).build());
		CountDownLatch waiting = new CountDownLatch(1);
		Future<Boolean> acquired = this.executor.submit(() -> acquireAndRelease(template, path, key, waiting));
		assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
		// the waiter is in its wait (or about to be): it must not return while the key is
		// held
		Thread.sleep(300);
		assertThat(acquired.isDone()).as("%s: waiter returned while the key was held", database).isFalse();
		holder.release();
		assertThat(acquired.get(30, TimeUnit.SECONDS)).as("%s: waiter granted after the holder released", database)
			.isTrue();
	}

	private static boolean acquireAndRelease(LockTemplate template, String path, String key,
			@Nullable CountDownLatch waiting) throws InterruptedException {
		if (waiting != null) {
			waiting.countDown();
		}
		switch (path) {
			case "LockTemplate" -> {
				Optional<Lease> lease = template.tryAcquire(LockRequest.builder(key).waitTime(LONGEST).build());
				lease.ifPresent(Lease::release);
				return lease.isPresent();
			}
			case "LeaseLock" -> {
				return tryLockAndUnlock(new LeaseLock(template, key));
			}
			default -> {
				return tryLockAndUnlock(new DistlockLockRegistry(template).obtain(key));
			}
		}
	}

	private static boolean tryLockAndUnlock(Lock lock) throws InterruptedException {
		if (!lock.tryLock(Long.MAX_VALUE, TimeUnit.MILLISECONDS)) {
			return false;
		}
		lock.unlock();
		return true;
	}

}
