package dev.distlock.jdbc;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockKeyException;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A key with an unpaired UTF-16 surrogate has no UTF-8 form: drivers send {@code ?} in
 * its place, so {@code "k\uD800"} and {@code "k?"} would be one lock. Such keys are
 * refused, short and long (hashed) alike, for locks and latches, before anything reaches
 * the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcUnpairedSurrogateTests {

	private final JdbcTestDatabases databases = JdbcTestDatabases.all();

	@AfterAll
	void dropTables() {
		this.databases.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void keyWithAnUnpairedSurrogateIsRefusedInsteadOfAliasingAnother(String name) {
		JdbcTestDatabase database = this.databases.get(name);
		JdbcLockProvider provider = database.provider().cleanupInterval(Duration.ZERO).build();
		try {
			String base = "surrogate-" + UUID.randomUUID() + "-";
			String longBase = base + "x".repeat(StoredKeys.MAX_PLAIN_KEY);
			for (String prefix : new String[] { base, longBase }) {
				AttemptOutcome<JdbcHeldLock> question = provider
					.tryAcquire(new LockAttempt(prefix + "?", LockType.MUTEX, 1, Duration.ofMinutes(1), "o-q"));
				assertThat(question.isAcquired()).as("%s? acquired", prefix).isTrue();
				for (String unpaired : new String[] { "\uD800", "\uDC00", "a\uDBFFb" }) {
					assertThatExceptionOfType(LockKeyException.class)
						.as("key ending in %s on %s", unpaired.codePoints().mapToObj(Integer::toHexString).toList(),
								name)
						.isThrownBy(() -> provider.tryAcquire(new LockAttempt(prefix + unpaired, LockType.MUTEX, 1,
								Duration.ofMinutes(1), "o-" + UUID.randomUUID())))
						.withMessageContaining("unpaired UTF-16 surrogate");
				}
				AttemptOutcome<JdbcHeldLock> paired = provider.tryAcquire(
						new LockAttempt(prefix + "\uD83D\uDE00", LockType.MUTEX, 1, Duration.ofMinutes(1), "o-p"));
				assertThat(paired.isAcquired()).as("%s with a paired surrogate acquired", prefix).isTrue();
				provider.release(question.lock());
				provider.release(paired.lock());
			}
			try (JdbcLatchProvider latches = new JdbcLatchProvider(database.dataSource(), database.tableName(), null)) {
				assertThatExceptionOfType(LockKeyException.class)
					.isThrownBy(() -> latches.trySetCount(base + "\uD800", 1, Duration.ofMinutes(1)));
			}
		}
		finally {
			provider.close();
		}
	}

}
