package dev.distlock.leader;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Leader election across processes on the ZooKeeper backend, on an in-process server
 * whose 200 ms tick lets the candidates' sessions time out after the leader lease (2 s):
 * a killed or frozen leader's lock node goes when its session expires on the server.
 */
class ZooKeeperLeaderElectionTests extends AbstractLeaderElectionTests {

	private static TestingServer server;

	@BeforeAll
	static void startServer() throws Exception {
		System.setProperty("zookeeper.forceSync", "no");
		server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@Override
	protected String backendName() {
		return "zookeeper";
	}

	@Override
	protected String connectString() {
		return server.getConnectString();
	}

}
