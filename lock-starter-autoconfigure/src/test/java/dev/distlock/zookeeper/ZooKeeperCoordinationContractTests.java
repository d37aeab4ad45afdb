package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.LatchProvider;
import dev.distlock.core.LockProvider;
import dev.distlock.test.AbstractCoordinationContractTests;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The coordination contract on a real, in-process ZooKeeper server; every provider has its own client and session,
 * as separate processes would.
 */
class ZooKeeperCoordinationContractTests extends AbstractCoordinationContractTests {

	private static TestingServer server;

	private final List<CuratorFramework> clients = Collections.synchronizedList(new ArrayList<>());

	@BeforeAll
	static void startServer() throws Exception {
		// latches are TTL nodes, which servers only allow when told so; their expiry is checked every 100 ms here
		System.setProperty("zookeeper.extendedTypesEnabled", "true");
		System.setProperty("znode.container.checkIntervalMs", "100");
		server = ZooKeeperTestSupport.server();
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@Override
	protected LockProvider<?> createProvider() throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString());
		this.clients.add(client);
		return new ZooKeeperLockProvider(client);
	}

	@Override
	protected void closeClients() {
		this.clients.forEach(CuratorFramework::close);
	}

	@Override
	protected LatchProvider createLatchProvider() throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString());
		this.clients.add(client);
		return new ZooKeeperLatchProvider(client, ZooKeeperLockProvider.DEFAULT_BASE_PATH);
	}

	/** The servers reap expired TTL nodes at their container check, every 100 ms here. */
	@Override
	protected Duration latchExpiryGrace() {
		return Duration.ofSeconds(2);
	}

}
