package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LISTEN/NOTIFY on PostgreSQL: a release wakes the waiters of that lock at once, over a
 * listening connection outside the pool that comes back after its session is killed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresNotificationTests {

	private static final String APPLICATION = "distlock-notify-" + UUID.randomUUID().toString().substring(0, 8);

	private static JdbcTestDatabase database;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeAll
	static void createTable() {
		database = JdbcTestDatabase.postgres((config) -> config.addDataSourceProperty("ApplicationName", APPLICATION));
	}

	@AfterAll
	static void dropTable() {
		database.close();
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void releaseNotifiesTheSubscribersOfThatLockOnly(LockType type) throws Exception {
		JdbcLockProvider holder = database.provider().build();
		JdbcLockProvider waiter = database.provider().build();
		try {
			String key = "n-" + UUID.randomUUID() + "-" + "k".repeat(300);
			LockType blocked = (type == LockType.READ) ? LockType.WRITE : type;
			AttemptOutcome<JdbcHeldLock> held = holder.tryAcquire(attempt(key, type));
			assertThat(held.isAcquired()).isTrue();
			CountDownLatch woken = new CountDownLatch(1);
			CountDownLatch otherWoken = new CountDownLatch(1);
			LockAttempt waiting = attempt(key, blocked);
			try (ReleaseSubscription subscription = waiter.subscribe(waiting, woken::countDown);
					ReleaseSubscription other = waiter.subscribe(attempt(key + "-other", blocked),
							otherWoken::countDown)) {
				assertThat(subscription.isActive()).as("LISTEN is in place").isTrue();
				assertThat(waiter.tryAcquire(waiting).isAcquired()).isFalse();
				long released = System.nanoTime();
				holder.release(held.lock());
				assertThat(woken.await(5, TimeUnit.SECONDS)).as("woken by the release").isTrue();
				System.out.printf("%s release -> notification: %.2f ms%n", type, (System.nanoTime() - released) / 1e6);
				assertThat(otherWoken.await(200, TimeUnit.MILLISECONDS)).as("another lock's waiter").isFalse();
				AttemptOutcome<JdbcHeldLock> next = waiter.tryAcquire(waiting);
				assertThat(next.isAcquired()).isTrue();
				waiter.release(next.lock());
			}
		}
		finally {
			holder.close();
			waiter.close();
		}
	}

	@Test
	void waiterIsHandedTheLockWithoutPolling() throws Exception {
		// the fallback poll is far longer than the hand-off may take: only the
		// notification can explain it
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix("")
			.withBackoff(Duration.ofMillis(5), Duration.ofMillis(200), Duration.ofSeconds(10));
		LockTemplate a = new LockTemplate(List.of(database.provider().build()), "jdbc", settings, List.of());
		LockTemplate b = new LockTemplate(List.of(database.provider().build()), "jdbc", settings, List.of());
		String key = "handoff-" + UUID.randomUUID();
		for (int i = 0; i < 5; i++) {
			Lease held = a.acquire(LockRequest.of(key));
			Future<Lease> waiting = this.executor
				.submit(() -> b.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(30)).build()));
			Thread.sleep(200);
			assertThat(waiting.isDone()).isFalse();
			long released = System.nanoTime();
			held.release();
			Lease next = waiting.get(5, TimeUnit.SECONDS);
			Duration handoff = Duration.ofNanos(System.nanoTime() - released);
			System.out.printf("hand-off %d: %.2f ms%n", i, handoff.toNanos() / 1e6);
			assertThat(handoff).isLessThan(Duration.ofSeconds(2));
			next.release();
		}
		a.defaultProvider().close();
		b.defaultProvider().close();
	}

	@Test
	void listenerReconnectsAfterItsSessionIsKilled() throws Exception {
		JdbcLockProvider holder = database.provider().build();
		JdbcLockProvider waiter = database.provider().build();
		try {
			String key = "relisten-" + UUID.randomUUID();
			LockAttempt first = attempt(key, LockType.MUTEX);
			try (ReleaseSubscription warmUp = waiter.subscribe(first, () -> {
			})) {
				assertThat(warmUp.isActive()).isTrue();
			}
			assertThat(terminateListeners()).as("listening sessions terminated").isPositive();
			AttemptOutcome<JdbcHeldLock> held = holder.tryAcquire(attempt(key, LockType.MUTEX));
			java.util.Queue<Long> wakeUps = new java.util.concurrent.ConcurrentLinkedQueue<>();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			try (ReleaseSubscription subscription = waiter.subscribe(first, () -> wakeUps.add(System.nanoTime()))) {
				while (!listening(waiter) && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				assertThat(listening(waiter)).as("listening again").isTrue();
				long released = System.nanoTime();
				holder.release(held.lock());
				// the reconnect wakes everyone once; the release must wake the waiter
				// after that
				while (wakeUps.stream().noneMatch((at) -> at > released) && System.nanoTime() < deadline) {
					Thread.sleep(10);
				}
				assertThat(wakeUps).as("woken by the release after the reconnect").anyMatch((at) -> at > released);
			}
		}
		finally {
			holder.close();
			waiter.close();
		}
	}

	@Test
	void schemaQualifiedTableWithALongNameGetsAChannelPostgresAccepts() throws Exception {
		String schema = "dl_s_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
		String table = schema + "." + "t".repeat(57);
		org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(
				database.dataSource());
		jdbc.execute("CREATE SCHEMA " + schema);
		try {
			JdbcLockSchema.create(database.dataSource(), table, null);
			assertThat(StoredKeys.channel(table)).hasSizeLessThanOrEqualTo(63);
			JdbcLockProvider holder = database.provider().tableName(table).build();
			JdbcLockProvider waiter = database.provider().tableName(table).build();
			LockAttempt waiting = attempt("k", LockType.MUTEX);
			AttemptOutcome<JdbcHeldLock> held = holder.tryAcquire(attempt("k", LockType.MUTEX));
			CountDownLatch woken = new CountDownLatch(1);
			try (ReleaseSubscription subscription = waiter.subscribe(waiting, woken::countDown)) {
				assertThat(subscription.isActive()).isTrue();
				holder.release(held.lock());
				assertThat(woken.await(5, TimeUnit.SECONDS)).as("woken on the digest channel").isTrue();
			}
			holder.close();
			waiter.close();
		}
		finally {
			jdbc.execute("DROP SCHEMA " + schema + " CASCADE");
		}
	}

	private static boolean listening(JdbcLockProvider provider) throws SQLException {
		try (Connection connection = database.dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity "
						+ "WHERE application_name = ? AND query LIKE 'LISTEN%'")) {
			statement.setString(1, APPLICATION);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getInt(1) > 0;
			}
		}
	}

	private static int terminateListeners() throws SQLException {
		try (Connection connection = database.dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT COUNT(pg_terminate_backend(pid)) "
						+ "FROM pg_stat_activity WHERE application_name = ? AND query LIKE 'LISTEN%'")) {
			statement.setString(1, APPLICATION);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getInt(1);
			}
		}
	}

	private static LockAttempt attempt(String key, LockType type) {
		return new LockAttempt(key, type, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID());
	}

}
