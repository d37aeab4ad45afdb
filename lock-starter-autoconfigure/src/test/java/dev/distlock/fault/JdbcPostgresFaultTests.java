package dev.distlock.fault;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;

import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code jdbc} backend on PostgreSQL under the common faults, plus the server ending
 * the provider's sessions ({@code pg_terminate_backend}, as a restart or a failover
 * would) while a holder holds. The shared server is never stopped; only the children's
 * lock connections (application name {@value #APPLICATION_NAME}) are ended.
 */
class JdbcPostgresFaultTests extends AbstractFaultTests {

	static final String APPLICATION_NAME = "distlock-fault-lock";

	/**
	 * Hikari's connection timeout: what bounds a call beyond its wait with the database
	 * unreachable.
	 */
	static final Duration POOL_TIMEOUT = Duration.ofSeconds(1);

	private final JdbcServer postgres = TestServers.postgres();

	private final URI address = URI.create(this.postgres.url().substring("jdbc:".length()));

	@Override
	String backend() {
		return "jdbc-postgres";
	}

	@Override
	int serverPort() {
		return (this.address.getPort() > 0) ? this.address.getPort() : 5432;
	}

	@Override
	List<String> backendArguments(int port) {
		String url = "jdbc:postgresql://127.0.0.1:" + port + this.address.getPath() + "?ApplicationName="
				+ APPLICATION_NAME + "&connectTimeout=1&socketTimeout=" + socketTimeoutSeconds();
		return List.of("--distlock.provider=jdbc", "--spring.datasource.url=" + url,
				"--spring.datasource.username=" + this.postgres.username(),
				"--spring.datasource.password=" + this.postgres.password(),
				"--spring.datasource.hikari.connection-timeout=" + POOL_TIMEOUT.toMillis(),
				"--spring.datasource.hikari.maximum-pool-size=4", "--distlock.jdbc.initialize-schema=always");
	}

	/**
	 * pgjdbc's socket timeout, above the wait: without one, a statement on a connection
	 * whose peer went silent waits as long as TCP does (docs/reliability.md).
	 */
	int socketTimeoutSeconds() {
		return 5;
	}

	/** What docs/jdbc.md promises: the wait plus one pool connection timeout. */
	@Override
	Duration callBound() {
		return WAIT.plus(POOL_TIMEOUT);
	}

	@Test
	void serverEndsTheProvidersSessions() throws Exception {
		try (FaultRun run = new FaultRun(backend(), "pg_terminate_backend of the lock connections")) {
			run.launch("A", arguments(serverPort()));
			run.launch("B", arguments(serverPort()));
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			int terminated = 0;
			for (int i = 0; i < 3; i++) {
				run.awaitHolder(Duration.ofSeconds(15));
				terminated += terminateLockSessions();
				Thread.sleep(500);
			}
			long healed = System.nanoTime();
			run.awaitProgress(Duration.ofSeconds(30));
			FaultChecker checker = run.stop();
			checker.checkOverlaps(false);
			checker.checkFencing();
			checker.checkNoHang(callBound(), run.stoppedAt());
			checker.checkRecovered(healed, run.live());
			checker.notes().add(terminated + " sessions terminated");
			long holds = run.record(checker);
			assertThat(checker.violations()).as("violations of %s; worker logs:%n%s", run.name(), run.logs()).isEmpty();
			assertThat(holds).as("calls that held the lock during %s", run.name()).isPositive();
		}
	}

	private int terminateLockSessions() throws Exception {
		try (Connection con = DriverManager.getConnection(this.postgres.url(), this.postgres.username(),
				this.postgres.password());
				PreparedStatement terminate = con.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM "
						+ "pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()")) {
			terminate.setString(1, APPLICATION_NAME);
			try (ResultSet result = terminate.executeQuery()) {
				result.next();
				return result.getInt(1);
			}
		}
	}

}
