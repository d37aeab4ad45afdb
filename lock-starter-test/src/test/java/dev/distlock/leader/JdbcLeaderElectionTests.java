package dev.distlock.leader;

import java.util.UUID;

import dev.distlock.jdbc.JdbcLockSchema;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Leader election across processes on the JDBC backend, on PostgreSQL, in a lock table of
 * its own.
 */
class JdbcLeaderElectionTests extends AbstractLeaderElectionTests {

	private static final String LOCK_TABLE = "dl_leader_"
			+ UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private static DriverManagerDataSource dataSource;

	@BeforeAll
	static void createLockTable() throws Exception {
		TestServers.JdbcServer server = TestServers.postgres();
		dataSource = new DriverManagerDataSource(server.url(), server.username(), server.password());
		JdbcLockSchema.create(dataSource, LOCK_TABLE, null);
	}

	@AfterAll
	static void dropLockTable() {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("DROP TABLE IF EXISTS " + LOCK_TABLE);
		jdbc.execute("DROP SEQUENCE IF EXISTS " + JdbcLockSchema.sequenceName(LOCK_TABLE));
	}

	@Override
	protected String backendName() {
		return "jdbc";
	}

	@Override
	protected String connectString() {
		TestServers.JdbcServer server = TestServers.postgres();
		return server.url() + "|" + server.username() + "|" + LOCK_TABLE;
	}

}
