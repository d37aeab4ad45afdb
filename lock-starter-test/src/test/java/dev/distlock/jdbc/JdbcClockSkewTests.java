package dev.distlock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.test.LockHistory;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two processes whose clocks are twenty minutes apart (injected {@link Clock}s ten
 * minutes either side of the real one) and whose database sessions run in time zones
 * twenty hours apart still exclude each other and see leases end on time: every lease is
 * the database's time, compared in SQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcClockSkewTests {

	private static final Duration SKEW = Duration.ofMinutes(10);

	private final Map<String, Skewed> databases = new java.util.HashMap<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/** A table and two pools on it whose sessions' time zones differ. */
	record Skewed(JdbcTestDatabase east, HikariDataSource west) {
	}

	@BeforeAll
	void createTables() {
		TestServers.JdbcServer postgres = TestServers.postgres();
		JdbcTestDatabase pg = JdbcTestDatabase
			.postgres((c) -> c.setConnectionInitSql("SET TIME ZONE 'Pacific/Kiritimati'"));
		this.databases.put("postgresql", new Skewed(pg,
				pool(postgres.url(), postgres.username(), postgres.password(), "SET TIME ZONE 'Pacific/Pago_Pago'")));
		TestServers.JdbcServer mariadb = TestServers.mariadb();
		JdbcTestDatabase maria = JdbcTestDatabase.mariadb((c) -> c.setConnectionInitSql("SET time_zone = '+10:00'"));
		this.databases.put("mariadb", new Skewed(maria,
				pool(mariadb.url(), mariadb.username(), mariadb.password(), "SET time_zone = '-10:00'")));
		JdbcTestDatabase h2 = JdbcTestDatabase.h2((c) -> c.setConnectionInitSql("SET TIME ZONE 'Pacific/Kiritimati'"));
		this.databases.put("h2",
				new Skewed(h2, pool(h2.dataSource().getJdbcUrl(), "sa", "", "SET TIME ZONE 'Pacific/Pago_Pago'")));
	}

	@AfterAll
	void dropTables() {
		this.executor.shutdownNow();
		this.databases.values().forEach((skewed) -> {
			skewed.west().close();
			skewed.east().close();
		});
	}

	private static HikariDataSource pool(String url, String username, String password, String initSql) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(url);
		pool.setUsername(username);
		pool.setPassword(password);
		pool.setMaximumPoolSize(8);
		pool.setConnectionInitSql(initSql);
		return pool;
	}

	private LockTemplate east(String database) {
		Skewed skewed = this.databases.get(database);
		return template(skewed.east().provider().clock(Clock.offset(Clock.systemUTC(), SKEW)).build());
	}

	private LockTemplate west(String database) {
		Skewed skewed = this.databases.get(database);
		return template(
				skewed.east().provider(skewed.west()).clock(Clock.offset(Clock.systemUTC(), SKEW.negated())).build());
	}

	private static LockTemplate template(JdbcLockProvider provider) {
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix("")
			.withWatchdog(Duration.ofMillis(1500), Duration.ofMillis(500))
			.withBackoff(Duration.ofMillis(5), Duration.ofMillis(100), Duration.ofMillis(300));
		return new LockTemplate(List.of(provider), "jdbc", settings, List.of());
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "mariadb", "h2" })
	void skewedProcessesSeeTheirClocksDifferButExcludeEachOther(String database) throws Exception {
		LockTemplate east = east(database);
		LockTemplate west = west(database);
		Duration eastOffset = ((JdbcLockProvider) east.defaultProvider()).databaseClockOffset();
		Duration westOffset = ((JdbcLockProvider) west.defaultProvider()).databaseClockOffset();
		assertThat(westOffset.minus(eastOffset)).as("the two clocks are twenty minutes apart")
			.isBetween(Duration.ofMinutes(19), Duration.ofMinutes(21));
		Skewed skewed = this.databases.get(database);
		assertThat(sessionZoneHours(skewed.east().dataSource(), database) - sessionZoneHours(skewed.west(), database))
			.as("session time zones apart (hours)")
			.isGreaterThanOrEqualTo(20);
		List<String> keys = List.of("skew-" + UUID.randomUUID(), "skew-" + UUID.randomUUID());
		LockHistory history = new LockHistory();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (LockTemplate process : List.of(east, west)) {
			for (int t = 0; t < 3; t++) {
				String holder = ((process == east) ? "east" : "west") + t;
				workers.add(this.executor.submit(() -> {
					start.await();
					for (int op = 0; op < 15; op++) {
						ThreadLocalRandom random = ThreadLocalRandom.current();
						LockType type = List.of(LockType.MUTEX, LockType.WRITE, LockType.READ, LockType.SEMAPHORE)
							.get(random.nextInt(4));
						LockRequest.Builder request = LockRequest.builder(keys.get(random.nextInt(2)))
							.type(type)
							.waitTime(Duration.ofSeconds(30));
						if (type == LockType.SEMAPHORE) {
							request.permits(2);
						}
						long requested = System.nanoTime();
						Lease lease = process.acquire(request.build());
						long begin = System.nanoTime();
						Thread.sleep(random.nextInt(3));
						history.record(lease, 2, holder, requested, begin, System.nanoTime());
						lease.release();
					}
					return null;
				}));
			}
		}
		start.countDown();
		for (Future<?> worker : workers) {
			worker.get(90, TimeUnit.SECONDS);
		}
		assertThat(history.size()).isEqualTo(2 * 3 * 15);
		history.assertConsistent();
		close(east, west);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "mariadb", "h2" })
	void leasesEndOnTimeWhicheverClockIsAhead(String database) throws Exception {
		LockTemplate east = east(database);
		LockTemplate west = west(database);
		for (boolean eastHolds : List.of(true, false)) {
			LockTemplate holder = eastHolds ? east : west;
			LockTemplate taker = eastHolds ? west : east;
			String key = "expiry-" + UUID.randomUUID();
			long acquired = System.nanoTime();
			Lease lease = holder.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(1)).build());
			Thread.sleep(300);
			assertThat(taker.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()))
				.as("held during its lease")
				.isEmpty();
			Optional<Lease> next = taker.tryAcquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build());
			Duration freedAfter = Duration.ofNanos(System.nanoTime() - acquired);
			assertThat(next).as("free once the lease ended").isPresent();
			assertThat(freedAfter).as("a one-second lease ends after about a second")
				.isBetween(Duration.ofMillis(950), Duration.ofMillis(3000));
			next.get().release();
			lease.release();
		}
		close(east, west);
	}

	private static int sessionZoneHours(javax.sql.DataSource dataSource, String database) throws Exception {
		String sql = switch (database) {
			case "postgresql" -> "SELECT CAST(EXTRACT(TIMEZONE FROM now()) / 3600 AS INT)";
			case "mariadb" -> "SELECT TIMESTAMPDIFF(HOUR, UTC_TIMESTAMP(), NOW())";
			default -> "SELECT EXTRACT(TIMEZONE_HOUR FROM CURRENT_TIMESTAMP)";
		};
		try (java.sql.Connection connection = dataSource.getConnection();
				java.sql.ResultSet result = connection.createStatement().executeQuery(sql)) {
			result.next();
			return result.getInt(1);
		}
	}

	private static void close(LockTemplate... templates) {
		for (LockTemplate template : templates) {
			template.close();
			template.defaultProvider().close();
		}
	}

}
