package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * PostgreSQL releases send {@code pg_notify} only while a waiter is registered on the
 * lock: what an independent LISTEN connection of the test receives on the table's channel
 * shows which releases notified.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresWaiterRegistrationTests {

	private static JdbcTestDatabase database;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<JdbcLockProvider> providers = new ArrayList<>();

	private Connection listening;

	@BeforeAll
	static void createTable() {
		database = JdbcTestDatabase.postgres();
	}

	@AfterAll
	static void dropTable() {
		database.close();
	}

	@BeforeEach
	void listen() throws SQLException {
		TestServers.JdbcServer server = TestServers.postgres();
		this.listening = DriverManager.getConnection(server.url(), server.username(), server.password());
		try (Statement statement = this.listening.createStatement()) {
			statement.execute("LISTEN \"" + StoredKeys.channel(database.tableName()) + "\"");
		}
	}

	@AfterEach
	void close() throws SQLException {
		this.providers.forEach(JdbcLockProvider::close);
		this.executor.shutdownNow();
		this.listening.close();
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void releaseNotifiesOnlyWhileAWaiterIsRegistered(LockType type) throws Exception {
		JdbcLockProvider holder = provider(true);
		JdbcLockProvider waiter = provider(true);
		String key = "only-waited-" + UUID.randomUUID();
		LockType blocked = (type == LockType.READ) ? LockType.WRITE : type;
		holder.release(acquire(holder, key, type));
		assertThat(notifications(Duration.ofMillis(300))).as("an uncontended release notifies nobody").isEmpty();

		JdbcHeldLock held = acquire(holder, key, type);
		LockAttempt waiting = attempt(key, blocked);
		try (ReleaseSubscription subscription = waiter.subscribe(waiting, Duration.ofSeconds(10), () -> {
		})) {
			assertThat(subscription.isActive()).as("listening and registered").isTrue();
			assertThat(waiter.tryAcquire(waiting).isAcquired()).isFalse();
			holder.release(held);
			assertThat(notifications(Duration.ofSeconds(5), 1)).as("a release with a waiter notifies")
				.containsExactly(StoredKeys.kind(type) + StoredKeys.storedKey(key));
		}
		// a FAIR waiter's ticket would keep the holder out
		waiter.abandon(waiting);
		holder.release(acquire(holder, key, type));
		assertThat(notifications(Duration.ofMillis(300))).as("the waiter left: nobody to notify").isEmpty();
	}

	@Test
	void waiterIsHandedTheLockByANotificationAndLeavesWithItsGrant() throws Exception {
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix("")
			.withBackoff(Duration.ofMillis(5), Duration.ofMillis(200), Duration.ofSeconds(20));
		LockTemplate a = template(provider(true), settings);
		LockTemplate b = template(provider(true), settings);
		String key = "handed-" + UUID.randomUUID();
		Lease held = a.acquire(LockRequest.of(key));
		Future<Lease> waiting = this.executor
			.submit(() -> b.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(30)).build()));
		awaitWaiters(key, 1);
		long released = System.nanoTime();
		held.release();
		// the fallback poll (20 s) is far longer than this: only the notification can
		// explain it
		Lease next = waiting.get(5, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(3));
		assertThat(waiters(key)).as("the grant left the registry").isZero();
		next.release();
		assertThat(notifications(Duration.ofMillis(300))).as("only the first release notified").hasSize(1);
	}

	@Test
	void waiterOfALockWithoutARowIsRegisteredAndNotSweptAway() throws Exception {
		JdbcLockProvider holder = provider(true);
		JdbcLockProvider waiter = provider(true);
		String key = "no-row-yet-" + UUID.randomUUID();
		assertThat(database.rows(key, LockType.MUTEX)).isZero();
		try (ReleaseSubscription subscription = waiter.subscribe(attempt(key, LockType.MUTEX), Duration.ofSeconds(10),
				() -> {
				})) {
			assertThat(subscription.isActive()).isTrue();
			assertThat(database.rows(key, LockType.MUTEX)).as("the registration made the head row").isOne();
			holder.sweep();
			assertThat(database.rows(key, LockType.MUTEX)).as("a registered head row is not swept").isOne();
			holder.release(acquire(holder, key, LockType.MUTEX));
			assertThat(notifications(Duration.ofSeconds(5), 1)).as("the waiter is told").hasSize(1);
		}
		holder.sweep();
		assertThat(database.rows(key, LockType.MUTEX)).as("swept once nobody waits").isZero();
	}

	@Test
	void waiterThatNeverLeftStopsCountingWhenItsWaitIsOver() throws Exception {
		JdbcLockProvider holder = provider(true);
		JdbcLockProvider waiter = provider(true);
		String key = "crashed-waiter-" + UUID.randomUUID();
		// never closed, as by a waiter that crashed
		ReleaseSubscription subscription = waiter.subscribe(attempt(key, LockType.MUTEX), Duration.ofMillis(100),
				() -> {
				});
		assertThat(subscription.isActive()).isTrue();
		holder.release(acquire(holder, key, LockType.MUTEX));
		assertThat(notifications(Duration.ofSeconds(5), 1)).as("registered: notified").hasSize(1);
		Thread.sleep(Duration.ofMillis(100).plus(WaiterRegistration.SLACK).plusMillis(300).toMillis());
		holder.release(acquire(holder, key, LockType.MUTEX));
		assertThat(notifications(Duration.ofMillis(300))).as("the registration lapsed").isEmpty();
	}

	@Test
	void providerWithoutNotificationsStillNotifiesTheWaitersOfOthers() throws Exception {
		JdbcLockProvider quiet = provider(false);
		JdbcLockProvider waiter = provider(true);
		String key = "quiet-holder-" + UUID.randomUUID();
		JdbcHeldLock held = acquire(quiet, key, LockType.MUTEX);
		assertThat(quiet.subscribe(attempt(key, LockType.MUTEX), Duration.ofSeconds(10), () -> {
		}).isActive()).as("a provider without notifications polls").isFalse();
		try (ReleaseSubscription subscription = waiter.subscribe(attempt(key, LockType.MUTEX), Duration.ofSeconds(10),
				() -> {
				})) {
			quiet.release(held);
			assertThat(notifications(Duration.ofSeconds(5), 1)).hasSize(1);
		}
	}

	@Test
	void tableWithoutTheWaiterColumnsIsRefusedThenUpgradedByTheSchemaScript() throws Exception {
		String table = "dl_old_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try (Connection connection = database.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE " + table + " (lock_key VARCHAR(255) NOT NULL, lock_kind VARCHAR(1) "
					+ "NOT NULL, slot BIGINT NOT NULL, owner VARCHAR(100), hold_mode VARCHAR(1), lease_until "
					+ "TIMESTAMP WITH TIME ZONE NOT NULL, fence BIGINT NOT NULL, PRIMARY KEY (lock_key, lock_kind, "
					+ "slot))");
			statement.execute("CREATE SEQUENCE " + table + "_fence");
			statement
				.execute("INSERT INTO " + table + " VALUES ('k', 'M', 0, 'o', 'X', now() + INTERVAL '1 hour', " + "1)");
		}
		try {
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> database.provider().tableName(table).build())
				.withMessageContaining("schema-postgresql.sql");
			JdbcLockSchema.create(database.dataSource(), table, null);
			JdbcLockSchema.create(database.dataSource(), table, null);
			JdbcLockProvider upgraded = database.provider().tableName(table).build();
			this.providers.add(upgraded);
			assertThat(upgraded.tryAcquire(attempt("k", LockType.MUTEX)).isAcquired()).as("the old row is kept")
				.isFalse();
			assertThat(acquire(upgraded, "k2", LockType.MUTEX).fencingToken()).isPositive();
		}
		finally {
			try (Connection connection = database.dataSource().getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("DROP TABLE " + table);
				statement.execute("DROP SEQUENCE " + table + "_fence");
			}
		}
	}

	private JdbcLockProvider provider(boolean notifications) {
		JdbcLockProvider provider = database.provider().notifications(notifications).build();
		this.providers.add(provider);
		return provider;
	}

	private static LockTemplate template(JdbcLockProvider provider, LockSettings settings) {
		return new LockTemplate(List.of(provider), "jdbc", settings, List.of());
	}

	private static JdbcHeldLock acquire(JdbcLockProvider provider, String key, LockType type) {
		AttemptOutcome<JdbcHeldLock> acquired = provider.tryAcquire(attempt(key, type));
		assertThat(acquired.isAcquired()).as("%s %s is free", type, key).isTrue();
		return acquired.lock();
	}

	private static LockAttempt attempt(String key, LockType type) {
		return new LockAttempt(key, type, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID());
	}

	/** The payloads this test's LISTEN connection receives within a time. */
	private List<String> notifications(Duration within) throws SQLException {
		return notifications(within, Integer.MAX_VALUE);
	}

	/**
	 * The payloads this test's LISTEN connection receives within a time, or until it has
	 * received as many as expected and then nothing more for 200 ms.
	 */
	private List<String> notifications(Duration within, int expected) throws SQLException {
		List<String> payloads = new ArrayList<>();
		long deadline = System.nanoTime() + within.toNanos();
		PGConnection pg = this.listening.unwrap(PGConnection.class);
		while (System.nanoTime() - deadline < 0) {
			if (payloads.size() >= expected) {
				deadline = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200));
				expected = Integer.MAX_VALUE;
			}
			long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
			PGNotification[] received = pg.getNotifications((int) Math.max(1, left));
			if (received != null) {
				for (PGNotification notification : received) {
					payloads.add(notification.getParameter());
				}
			}
		}
		return payloads;
	}

	private static int waiters(String key) throws SQLException {
		try (Connection connection = database.dataSource().getConnection();
				PreparedStatement query = connection.prepareStatement("SELECT COALESCE(MAX(waiters), 0) FROM "
						+ database.tableName() + " WHERE lock_key = ? AND lock_kind = 'M' AND slot = 0")) {
			query.setString(1, StoredKeys.storedKey(key));
			try (ResultSet result = query.executeQuery()) {
				result.next();
				return result.getInt(1);
			}
		}
	}

	private static void awaitWaiters(String key, int count) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (waiters(key) < count) {
			assertThat(System.nanoTime()).as("%d waiter(s) registered on %s", count, key).isLessThan(deadline);
			Thread.sleep(10);
		}
	}

}
