package dev.distlock.leader;

import java.time.Duration;
import java.util.UUID;

import dev.distlock.etcd.EtcdCluster;
import dev.distlock.jdbc.JdbcLockSchema;
import dev.distlock.test.TestServers;
import org.apache.curator.test.TestingServer;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The servers of the Spring Integration tests: an in-process ZooKeeper server and a lock
 * table of their own on the shared PostgreSQL, beside the shared Redis; {@link #backend}
 * connects a new "process" to one of them.
 */
final class IntegrationTestServers implements AutoCloseable {

	private final String lockTable = "dl_si_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private final TestingServer zookeeper;

	private final DriverManagerDataSource postgres;

	IntegrationTestServers() throws Exception {
		this.zookeeper = new TestingServer(true);
		TestServers.JdbcServer server = TestServers.postgres();
		this.postgres = new DriverManagerDataSource(server.url(), server.username(), server.password());
		JdbcLockSchema.create(this.postgres, this.lockTable, null);
	}

	/**
	 * A provider with a client of its own on {@code redis}, {@code redisson},
	 * {@code jdbc}, {@code zookeeper} or {@code etcd} (the test JVM's shared etcd
	 * server).
	 */
	LeaderTestBackends.Backend backend(String backend, Duration lease) throws Exception {
		String connect = switch (backend) {
			case "zookeeper" -> this.zookeeper.getConnectString();
			case "etcd" -> EtcdCluster.shared().endpoints();
			case "jdbc" ->
				TestServers.postgres().url() + "|" + TestServers.postgres().username() + "|" + this.lockTable;
			default -> TestServers.redisUri().toString();
		};
		return LeaderTestBackends.backend(backend, connect, lease);
	}

	@Override
	public void close() throws Exception {
		this.zookeeper.close();
		JdbcTemplate jdbc = new JdbcTemplate(this.postgres);
		jdbc.execute("DROP TABLE IF EXISTS " + this.lockTable);
		jdbc.execute("DROP SEQUENCE IF EXISTS " + JdbcLockSchema.sequenceName(this.lockTable));
	}

}
