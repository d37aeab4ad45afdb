package dev.distlock.fault;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.jdbc.JdbcHeldLock;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSchema;
import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code jdbc} call that gets no answer (the network to the database silent) ends by
 * its call timeout, and its connection never goes back to the pool: HikariCP evicts it,
 * and once the network heals every call succeeds at the first try, and the lock whose
 * release got no answer is released in the background.
 */
@Tag("fault")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcTimedOutCallTests {

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "mariadb" })
	void timedOutConnectionIsEvictedAndTheUnansweredReleaseIsRetried(String database) throws Exception {
		JdbcServer server = database.equals("postgresql") ? TestServers.postgres() : TestServers.mariadb();
		URI address = URI.create(server.url().substring("jdbc:".length()));
		int port = (address.getPort() > 0) ? address.getPort() : (database.equals("postgresql") ? 5432 : 3306);
		try (TcpProxy proxy = TcpProxy.start(port); HikariDataSource pool = new HikariDataSource()) {
			pool.setJdbcUrl("jdbc:" + address.getScheme() + "://127.0.0.1:" + proxy.port() + address.getPath());
			pool.setUsername(server.username());
			pool.setPassword(server.password());
			pool.setMaximumPoolSize(2);
			JdbcLockSchema.create(pool, JdbcLockSchema.DEFAULT_TABLE_NAME, null);
			JdbcLockProvider provider = JdbcLockProvider.builder(pool).cleanupInterval(Duration.ZERO).build();
			try {
				String key = "timed-out-" + UUID.randomUUID();
				AttemptOutcome<JdbcHeldLock> held = provider.tryAcquire(attempt(key));
				assertThat(held.isAcquired()).isTrue();

				proxy.cut();
				long start = System.nanoTime();
				assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> provider.release(held.lock()));
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				assertThat(took).as("release without an answer").isLessThan(Duration.ofMillis(1500));
				assertThat(provider.failedReleases()).isEqualTo(1);
				proxy.heal();

				long healed = System.nanoTime();
				boolean free = false;
				while (!free && System.nanoTime() - healed < TimeUnit.SECONDS.toNanos(10)) {
					AttemptOutcome<JdbcHeldLock> other = provider.tryAcquire(attempt(key));
					free = other.isAcquired();
					if (free) {
						provider.release(other.lock());
					}
					else {
						Thread.sleep(50);
					}
				}
				assertThat(free).as("lock whose release got no answer, 10 s after the heal").isTrue();
				for (int i = 0; i < 20; i++) {
					AttemptOutcome<JdbcHeldLock> next = provider.tryAcquire(attempt(key + "-" + i));
					assertThat(next.isAcquired()).as("call %d after the heal", i).isTrue();
					provider.release(next.lock());
				}
				assertThat(provider.failedReleases()).as("releases failed after the heal").isEqualTo(1);
			}
			finally {
				provider.close();
			}
		}
	}

	private static LockAttempt attempt(String key) {
		return new LockAttempt(key, LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + UUID.randomUUID());
	}

}
