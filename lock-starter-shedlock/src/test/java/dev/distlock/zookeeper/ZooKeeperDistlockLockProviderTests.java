package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.shedlock.AbstractDistlockLockProviderTests;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * ShedLock's provider test on a real, in-process ZooKeeper server; each node has its own
 * client and session.
 */
class ZooKeeperDistlockLockProviderTests extends AbstractDistlockLockProviderTests {

	private static TestingServer server;

	private final List<CuratorFramework> clients = Collections.synchronizedList(new ArrayList<>());

	@BeforeAll
	static void startServer() throws Exception {
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

	/**
	 * ZooKeeper has no expiring node: the holder deletes the node of a fixed lease that
	 * ran out, found by a sweep every 50 ms (docs/zookeeper.md), so another node may see
	 * it up to that much later.
	 */
	@Override
	protected Duration releaseLag() {
		return Duration.ofMillis(200);
	}

	@Override
	protected void closeClients() {
		this.clients.forEach(CuratorFramework::close);
	}

}
