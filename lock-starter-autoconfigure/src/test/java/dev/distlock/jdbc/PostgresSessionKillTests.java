package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kills the holder's database sessions mid-lease ({@code pg_terminate_backend} on every
 * connection of its pool and its listening connection, found by application name) again
 * and again: the leases must be renewed on new connections or reported lost, and another
 * process must never acquire a lock whose first lease is still valid.
 */
@Tag("fault")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PostgresSessionKillTests {

	private static final String HOLDER_APP = "distlock-kill-" + UUID.randomUUID().toString().substring(0, 8);

	private static JdbcTestDatabase holderDatabase;

	private static JdbcTestDatabase checkerPool;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeAll
	static void createTable() {
		holderDatabase = JdbcTestDatabase.postgres((config) -> {
			config.addDataSourceProperty("ApplicationName", HOLDER_APP);
			config.setMaximumPoolSize(4);
		});
		checkerPool = JdbcTestDatabase.postgres();
	}

	@AfterAll
	static void dropTable() {
		holderDatabase.close();
		checkerPool.close();
	}

	@Test
	void leasesSurviveKilledSessionsAndAreNeverHeldTwice() throws Exception {
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix("")
			// a lease of several renewal intervals: a renewal that fails on a killed
			// session is retried an interval later, on a loaded machine too
			.withWatchdog(Duration.ofSeconds(4), Duration.ofMillis(600))
			.withBackoff(Duration.ofMillis(5), Duration.ofMillis(100), Duration.ofMillis(300));
		LockTemplate holder = template(holderDatabase.provider().build(), settings);
		// the checker uses its own pool on the same table: its sessions are not killed
		LockTemplate checker = template(holderDatabase.provider(checkerPool.dataSource()).build(), settings);
		String prefix = "kill-" + UUID.randomUUID() + "-";
		List<LockType> types = List.of(LockType.MUTEX, LockType.FAIR, LockType.WRITE, LockType.SEMAPHORE);
		List<Lease> leases = new ArrayList<>();
		for (LockType type : types) {
			leases.add(holder.acquire(request(prefix + type, type, Duration.ZERO)));
		}
		// a waiter of the holder's own pool, parked on LISTEN, whose session dies too
		LockTemplate waiterProcess = template(holderDatabase.provider().build(), settings);
		Future<Lease> waiter = this.executor
			.submit(() -> waiterProcess.acquire(request(prefix + "MUTEX", LockType.MUTEX, Duration.ofSeconds(60))));
		long renewalsBefore = renewals(holder);
		int killed = 0;
		int probes = 0;
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
		long nextKill = System.nanoTime();
		while (System.nanoTime() < end) {
			if (System.nanoTime() >= nextKill) {
				killed += terminateSessions();
				nextKill = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1300);
			}
			for (int i = 0; i < types.size(); i++) {
				Lease lease = leases.get(i);
				boolean validBefore = lease.isValid();
				var stolen = checker.tryAcquire(request(prefix + types.get(i), types.get(i), Duration.ZERO));
				boolean validAfter = lease.isValid();
				probes++;
				if (stolen.isPresent()) {
					stolen.get().release();
					assertThat(validBefore && validAfter)
						.as("%s acquired by another process while the first lease " + "was valid: held twice",
								types.get(i))
						.isFalse();
				}
			}
			Thread.sleep(100);
		}
		System.out.printf("killed %d sessions, %d probes, renewals %d -> %d%n", killed, probes, renewalsBefore,
				renewals(holder));
		assertThat(killed).as("sessions terminated").isGreaterThanOrEqualTo(5);
		assertThat(leases).as("renewed on new connections").allMatch(Lease::isValid);
		assertThat(renewals(holder)).isGreaterThan(renewalsBefore + 4 * types.size());
		assertThat(waiter.isDone()).as("the waiter still waits").isFalse();
		long released = System.nanoTime();
		leases.forEach(Lease::release);
		Lease next = waiter.get(10, TimeUnit.SECONDS);
		System.out.printf("hand-off after the kills: %.1f ms%n", (System.nanoTime() - released) / 1e6);
		assertThat(next.fencingToken()).isGreaterThan(leases.get(0).fencingToken());
		next.release();
		for (LockType type : types) {
			checker.acquire(request(prefix + type, type, Duration.ofSeconds(5))).release();
		}
		List.of(holder, checker, waiterProcess).forEach((template) -> {
			template.close();
			template.defaultProvider().close();
		});
		this.executor.shutdownNow();
	}

	private static LockTemplate template(JdbcLockProvider provider, LockSettings settings) {
		return new LockTemplate(List.of(provider), "jdbc", settings, List.of());
	}

	private static LockRequest request(String key, LockType type, Duration wait) {
		LockRequest.Builder builder = LockRequest.builder(key).type(type).waitTime(wait);
		if (type == LockType.SEMAPHORE) {
			builder.permits(1);
		}
		return builder.build();
	}

	private static long renewals(LockTemplate template) {
		return template.activeLeases().stream().mapToLong(LeaseSnapshot::renewals).sum();
	}

	private static int terminateSessions() throws SQLException {
		try (Connection connection = checkerPool.dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT COUNT(pg_terminate_backend(pid)) "
						+ "FROM pg_stat_activity WHERE application_name = ?")) {
			statement.setString(1, HOLDER_APP);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getInt(1);
			}
		}
	}

}
