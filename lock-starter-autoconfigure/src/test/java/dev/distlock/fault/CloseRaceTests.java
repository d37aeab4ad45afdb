package dev.distlock.fault;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.DistributedLockException;
import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSchema;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquisitions racing {@link LockTemplate#close()}: threads acquire, hold briefly and
 * release while the template is closed under them. Afterwards the template holds nothing
 * ({@code activeLeases()} is empty) and the backend holds no lock of its keys: every
 * acquisition that won the race was released by the shutdown or by itself.
 */
class CloseRaceTests {

	private static final int ROUNDS = 12;

	private static final int THREADS = 6;

	private final String prefix = "close-race-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void acquisitionsRacingCloseLeaveNothingHeldOnRedis() throws Exception {
		URI uri = TestServers.redisUri();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		RedisLockProvider provider = new RedisLockProvider(factory);
		this.resources.add(provider::close);
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		race(provider, () -> {
			// a waiter leaves the waiter registry (<lock>:wakeup) with a script sent
			// without waiting for its answer, so the last waiters' leaves may still be on
			// their way when the threads have ended; a registration ends by itself with
			// its wait (20 ms here) plus 1 s. Locks hold their keys for the 5 s watchdog
			// lease: waiting out the registrations cannot hide one
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
			while (true) {
				Set<String> keys = redis.keys("*" + this.prefix + "*");
				// a key's fencing counter outlives its locks by design
				// (distlock.redis.fence-retention)
				List<String> left = keys.stream().filter((key) -> !key.endsWith(":fence")).toList();
				boolean onlyRegistrations = left.stream().allMatch((key) -> key.endsWith(":wakeup"));
				if (left.isEmpty() || !onlyRegistrations || System.nanoTime() > until) {
					return left;
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
		});
	}

	@Test
	void acquisitionsRacingCloseLeaveNothingHeldOnPostgres() throws Exception {
		JdbcServer postgres = TestServers.postgres();
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(postgres.url());
		dataSource.setUsername(postgres.username());
		dataSource.setPassword(postgres.password());
		dataSource.setMaximumPoolSize(THREADS + 2);
		this.resources.add(dataSource);
		JdbcLockSchema.create(dataSource, JdbcLockSchema.DEFAULT_TABLE_NAME, null);
		JdbcLockProvider provider = JdbcLockProvider.builder(dataSource).build();
		this.resources.add(provider::close);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		race(provider,
				() -> jdbc.queryForList("SELECT lock_key || ' ' || lock_kind || ' ' || slot FROM "
						+ JdbcLockSchema.DEFAULT_TABLE_NAME + " WHERE lock_key LIKE ? AND lease_until > now()",
						String.class, this.prefix + "%"));
	}

	private void race(LockProvider<?> provider, Supplier<List<String>> heldInBackend) throws Exception {
		AtomicInteger granted = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		for (int round = 0; round < ROUNDS; round++) {
			LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
					LockSettings.defaults().withKeyPrefix(this.prefix).withWatchdog(Duration.ofSeconds(5), null),
					List.of());
			CountDownLatch started = new CountDownLatch(THREADS);
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int index = t;
				Thread thread = new Thread(() -> {
					started.countDown();
					while (true) {
						LockType type = (index % 3 == 2) ? LockType.READ : LockType.MUTEX;
						LockRequest request = LockRequest.builder("key-" + (index % 3))
							.type(type)
							.waitTime(Duration.ofMillis(20))
							.build();
						try {
							Optional<Lease> lease = template.tryAcquire(request);
							if (lease.isPresent()) {
								granted.incrementAndGet();
								spin(ThreadLocalRandom.current().nextInt(500));
								lease.get().release();
							}
						}
						catch (DistributedLockException ex) {
							refused.incrementAndGet();
							return; // the template is closed
						}
					}
				}, "close-race-" + t);
				threads.add(thread);
				thread.start();
			}
			started.await();
			Thread.sleep(ThreadLocalRandom.current().nextInt(5, 40));
			template.close();
			for (Thread thread : threads) {
				thread.join(TimeUnit.SECONDS.toMillis(20));
				assertThat(thread.isAlive()).as(thread.getName() + " still running after close").isFalse();
			}
			assertThat(template.activeLeases()).as("leases the closed template still lists, round " + round).isEmpty();
			assertThat(heldInBackend.get()).as("locks still held in the backend after close, round " + round).isEmpty();
		}
		assertThat(granted.get()).as("acquisitions granted before the closes").isPositive();
		assertThat(refused.get()).as("acquisitions refused by closed templates").isEqualTo(ROUNDS * THREADS);
	}

	private static void spin(int micros) {
		long end = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(micros);
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
	}

}
