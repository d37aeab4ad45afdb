package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the JDBC backend promises beyond the provider contract, on every dialect: keys are
 * data (case, trailing spaces, quotes, long keys all distinct), tables do not fill up
 * with dead rows, fencing survives releases and the upgrade of a table without a
 * sequence, an abandoned attempt leaves nothing behind, and bad configuration fails
 * early.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcLockProviderTests {

	private final JdbcTestDatabases databases = JdbcTestDatabases.all();

	@AfterAll
	void dropTables() {
		this.databases.close();
	}

	private LockTemplate process(String database) {
		JdbcLockProvider provider = this.databases.get(database).provider().build();
		return new LockTemplate(List.of(provider), "jdbc", LockSettings.defaults().withKeyPrefix(""), List.of());
	}

	private static Optional<Lease> tryOnce(LockTemplate process, String key, LockType type) {
		LockRequest.Builder request = LockRequest.builder(key).type(type).waitTime(Duration.ZERO);
		if (type == LockType.SEMAPHORE) {
			request.permits(1);
		}
		return process.tryAcquire(request.build());
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void keysThatDifferOnlyInCaseSpacesOrLengthAreDifferentLocks(String database) {
		LockTemplate a = process(database);
		LockTemplate b = process(database);
		String base = "k-" + UUID.randomUUID();
		String longKey = base + "x".repeat(400);
		List<String> keys = List.of(base, base.toUpperCase(), base + " ", base + "'; DROP TABLE x; --", "ключ-" + base,
				"\uD83D\uDD12" + base, longKey, longKey + "y", "\uD83D\uDD12".repeat(100) + base);
		List<Lease> held = keys.stream()
			.map((key) -> tryOnce(a, key, LockType.MUTEX).orElseThrow(
					() -> new AssertionError("'" + key + "' should be free: it is another lock than the others")))
			.toList();
		for (String key : keys) {
			assertThat(tryOnce(b, key, LockType.MUTEX)).as("'%s' is held", key).isEmpty();
		}
		held.forEach(Lease::release);
		for (String key : keys) {
			tryOnce(b, key, LockType.MUTEX).orElseThrow(() -> new AssertionError("'" + key + "' was released"))
				.release();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void fencingTokensKeepIncreasingAcrossReleasesExpiriesAndTypes(String database) throws Exception {
		LockTemplate a = process(database);
		LockTemplate b = process(database);
		String key = "fence-" + UUID.randomUUID();
		long previous = 0;
		for (int i = 0; i < 4; i++) {
			try (Lease lease = (i % 2 == 0 ? a : b).acquire(LockRequest.builder(key).waitTime(Duration.ZERO).build())) {
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
			}
		}
		Lease expiring = a.acquire(LockRequest.builder(key).lease(Duration.ofMillis(300)).build());
		assertThat(expiring.fencingToken()).isGreaterThan(previous);
		Lease takeover = b.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build());
		assertThat(takeover.fencingToken()).isGreaterThan(expiring.fencingToken());
		takeover.release();
		// readers and writers of one key draw from one counter
		Lease reader = a.acquire(LockRequest.builder(key).type(LockType.READ).build());
		Lease reader2 = b.acquire(LockRequest.builder(key).type(LockType.READ).build());
		assertThat(reader2.fencingToken()).isGreaterThan(reader.fencingToken());
		reader.release();
		reader2.release();
		Lease writer = a.acquire(LockRequest.builder(key).type(LockType.WRITE).build());
		assertThat(writer.fencingToken()).isGreaterThan(reader2.fencingToken());
		writer.release();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void deadRowsDoNotPileUp(String database) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		LockTemplate a = process(database);
		String key = "rows-" + UUID.randomUUID();
		for (int i = 0; i < 20; i++) {
			a.acquire(LockRequest.builder(key).type(LockType.READ).build()).release();
			a.acquire(LockRequest.builder(key).type(LockType.SEMAPHORE).permits(2).build()).release();
			a.acquire(LockRequest.builder(key).type(LockType.FAIR).build()).release();
		}
		// until the sweep: one head row per lock, plus at most the last holder row, which
		// the next acquire drops
		assertThat(db.rows(key, LockType.READ)).isLessThanOrEqualTo(2);
		assertThat(db.rows(key, LockType.SEMAPHORE)).isLessThanOrEqualTo(2);
		assertThat(db.rows(key, LockType.FAIR)).isLessThanOrEqualTo(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void upgradingATableWithoutASequenceKeepsTokensAboveThoseItHandedOut(String database) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		String table = "dl_old_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		JdbcDialect dialect = JdbcDialect.of(db.dataSource(), null);
		try (Connection connection = db.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			// a table of an earlier snapshot: the CREATE TABLE alone, with a lock whose
			// counter reached 1000
			String script = JdbcLockSchema.render(JdbcLockSchema.load(JdbcLockSchema.schemaPath(dialect)), table);
			statement.execute(LockStatements.split(script).get(0));
			try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table
					+ " (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence) VALUES (?, 'M', 0, 'x', 'X', ?, 1000)")) {
				insert.setString(1, "old");
				insert.setObject(2, LocalDateTime.of(1971, 1, 1, 0, 0));
				insert.executeUpdate();
			}
		}
		try {
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> db.provider().tableName(table).build())
				.withMessageContaining(JdbcLockSchema.sequenceName(table))
				.withMessageContaining("initialize-schema");
			// the upgrade, as distlock.jdbc.initialize-schema runs it, twice: it must
			// change nothing the second time
			JdbcLockSchema.create(db.dataSource(), table, null);
			JdbcLockProvider provider = db.provider().tableName(table).cleanupInterval(Duration.ZERO).build();
			long first = grant(provider, "old");
			assertThat(first).as("first token after the upgrade").isGreaterThan(1000);
			JdbcLockSchema.create(db.dataSource(), table, null);
			assertThat(provider.sweep()).as("rows swept").isEqualTo(1);
			long second = grant(provider, "old");
			assertThat(second).as("token after the row was deleted and the script ran again").isGreaterThan(first);
			assertThat(grant(provider, "new")).isGreaterThan(second);
			provider.close();
		}
		finally {
			try (Connection connection = db.dataSource().getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("DROP TABLE " + table);
				statement.execute("DROP SEQUENCE IF EXISTS " + JdbcLockSchema.sequenceName(table));
			}
		}
	}

	private static long grant(JdbcLockProvider provider, String key) throws Exception {
		LockAttempt attempt = new LockAttempt(key, LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID());
		var held = provider.tryAcquire(attempt).lock();
		provider.release(held);
		return held.fencingToken();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void abandonedAttemptsLeaveNoHolderAndNoTicket(String database) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		JdbcLockProvider provider = db.provider().build();
		JdbcLockProvider other = db.provider().build();
		String key = "abandon-" + UUID.randomUUID();
		for (LockType type : LockType.values()) {
			LockAttempt granted = new LockAttempt(key, type, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID());
			assertThat(provider.tryAcquire(granted).isAcquired()).as("%s granted", type).isTrue();
			// readers share, so a writer stands for the one that waits
			LockType waiter = (type == LockType.READ) ? LockType.WRITE : type;
			LockAttempt waiting = new LockAttempt(key, waiter, 1, Duration.ofSeconds(30), "w-" + UUID.randomUUID());
			assertThat(other.tryAcquire(waiting).isAcquired()).as("%s busy", type).isFalse();
			// a reply that never arrived: the core abandons the attempt, which must free
			// the lock and the queue
			provider.abandon(granted);
			other.abandon(waiting);
			LockAttempt next = new LockAttempt(key, type, 1, Duration.ofSeconds(30), "n-" + UUID.randomUUID());
			assertThat(other.tryAcquire(next).isAcquired()).as("%s free after abandon", type).isTrue();
			other.abandon(next);
		}
		provider.close();
		other.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void databaseClockOffsetIsMeasuredAgainstTheInjectedClock(String database) throws Exception {
		JdbcTestDatabase db = this.databases.get(database);
		java.time.Clock ahead = java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofMinutes(10));
		JdbcLockProvider provider = db.provider().clock(ahead).build();
		try {
			assertThat(provider.databaseClockOffset()).isBetween(Duration.ofMinutes(-11), Duration.ofMinutes(-9));
		}
		finally {
			provider.close();
		}
	}

	@Test
	void tableNamesThatAreNotPlainIdentifiersAreRefused() {
		JdbcTestDatabase db = this.databases.get("h2");
		for (String name : List.of("", "1locks", "locks;drop", "a.b.c", "lo cks", "\"locks\"", "x".repeat(58),
				"y".repeat(64) + ".locks")) {
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> db.provider().tableName(name).build())
				.withMessageContaining("table-name");
		}
		assertThat(JdbcLockSchema.validateTableName("app.distlock_lock")).isEqualTo("app.distlock_lock");
		assertThat(JdbcLockSchema.validateTableName("s".repeat(63) + "." + "t".repeat(57))).endsWith("t");
	}

	@Test
	void missingTableFailsWithInstructions() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.databases.get("postgresql").provider().tableName("no_such_lock_table").build())
			.withMessageContaining("no_such_lock_table")
			.withMessageContaining("schema-postgresql.sql");
	}

	@Test
	void renderReplacesOnlyTheTableAndSequenceNames() {
		String script = "CREATE TABLE distlock_lock (x INT); -- distlock_lock_pk stays\nSELECT 'distlock_lock' FROM distlock_lock"
				+ ";\nSELECT nextval('distlock_lock_fence'), NEXTVAL(distlock_lock_fence), distlock_lock_fences";
		assertThat(JdbcLockSchema.render(script, "app.locks"))
			.isEqualTo("CREATE TABLE app.locks (x INT); -- distlock_lock_pk stays\nSELECT 'app.locks' FROM app.locks"
					+ ";\nSELECT nextval('app.locks_fence'), NEXTVAL(app.locks_fence), distlock_lock_fences");
	}

}
