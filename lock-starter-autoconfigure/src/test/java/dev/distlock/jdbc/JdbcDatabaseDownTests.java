package dev.distlock.jdbc;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * With the database unreachable, an acquisition fails with
 * {@link LockAcquisitionException} within its wait plus one pool connection timeout (+10
 * %): the provider does not retry a connection it could not get, nor clean up an attempt
 * that never reached the database. The pool points at a port where nothing listens.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcDatabaseDownTests {

	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration WAIT = Duration.ofSeconds(1);

	@ParameterizedTest(name = "{0} {1}")
	@CsvSource({ "postgresql, MUTEX", "postgresql, FAIR", "postgresql, WRITE", "mariadb, MUTEX", "mariadb, FAIR" })
	void acquisitionFailsWithinItsWaitPlusOneConnectionTimeout(String platform, LockType type) throws Exception {
		int port = unusedPort();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:" + platform + "://127.0.0.1:" + port + "/test");
		config.setUsername("nobody");
		config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
		// start although the database is down, as an application whose database went away
		// later
		config.setInitializationFailTimeout(-1);
		config.setPoolName("distlock-down-" + UUID.randomUUID().toString().substring(0, 6));
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			JdbcLockProvider provider = JdbcLockProvider.builder(dataSource)
				.platform(platform)
				.checkTable(false)
				.build();
			LockTemplate process = new LockTemplate(List.of(provider), "jdbc",
					LockSettings.defaults().withKeyPrefix(""), List.of());
			Duration bound = WAIT.plus(CONNECTION_TIMEOUT).multipliedBy(11).dividedBy(10);
			for (int call = 1; call <= 3; call++) {
				LockRequest request = LockRequest.builder("down-" + call).type(type).waitTime(WAIT).build();
				long start = System.nanoTime();
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> process.acquire(request));
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				System.out.printf("%s %s, database down, call %d failed after %d ms%n", platform, type, call,
						took.toMillis());
				assertThat(took).as("call %d with the database down", call).isLessThan(bound);
			}
			process.close();
			provider.close();
		}
	}

	private static int unusedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
