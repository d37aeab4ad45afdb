package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.LockType;
import dev.distlock.test.AbstractLockProviderContractTests;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The provider contract on a real, in-process ZooKeeper server. Every provider has its
 * own client and so its own session, as separate processes would. After every test no
 * lock node of the test's keys may be left while the sessions are still open, which
 * proves that timed-out, try-once, expired and released attempts all delete their nodes.
 */
class ZooKeeperLockProviderContractTests extends AbstractLockProviderContractTests<ZooKeeperLockProvider> {

	private static TestingServer server;

	private static CuratorFramework admin;

	private final List<CuratorFramework> clients = Collections.synchronizedList(new ArrayList<>());

	@BeforeAll
	static void startServer() throws Exception {
		server = ZooKeeperTestSupport.server();
		admin = ZooKeeperTestSupport.client(server.getConnectString());
	}

	@AfterAll
	static void stopServer() throws Exception {
		try {
			assertThat(ZooKeeperTestSupport.lockNodes(admin, ZooKeeperLockProvider.DEFAULT_BASE_PATH, ""))
				.as("lock nodes left under the base path after the suite")
				.isEmpty();
		}
		finally {
			admin.close();
			server.close();
		}
	}

	@Override
	protected ZooKeeperLockProvider createProvider() throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString());
		this.clients.add(client);
		return new ZooKeeperLockProvider(client);
	}

	@Override
	protected void breakLock(String fullKey, LockType type) throws Exception {
		String lockPath = new LockNodePaths(ZooKeeperLockProvider.DEFAULT_BASE_PATH).lockPath(fullKey, type);
		for (String child : admin.getChildren().forPath(lockPath)) {
			admin.delete().quietly().forPath(lockPath + "/" + child);
		}
	}

	@AfterEach
	void noLockNodeIsLeftWhileSessionsAreOpen() throws Exception {
		try {
			String keyPrefix = LockNodePaths.encodeKey(this.prefix);
			awaitTrue("no lock nodes left for " + this.prefix, Duration.ofSeconds(5),
					() -> ZooKeeperTestSupport.lockNodes(admin, ZooKeeperLockProvider.DEFAULT_BASE_PATH, keyPrefix)
						.isEmpty());
		}
		finally {
			this.clients.forEach(CuratorFramework::close);
		}
	}

}
