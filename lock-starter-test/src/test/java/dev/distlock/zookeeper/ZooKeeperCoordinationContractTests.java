package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.test.AbstractCoordinationContractTests;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordination contract on a real, in-process ZooKeeper server; every provider has
 * its own client and session, as separate processes would.
 */
class ZooKeeperCoordinationContractTests extends AbstractCoordinationContractTests<ZooKeeperLockProvider> {

	private static TestingServer server;

	private final List<CuratorFramework> clients = Collections.synchronizedList(new ArrayList<>());

	@BeforeAll
	static void startServer() throws Exception {
		// latches are TTL nodes, which servers only allow when told so; their expiry is
		// checked every 100 ms here
		System.setProperty("zookeeper.extendedTypesEnabled", "true");
		System.setProperty("znode.container.checkIntervalMs", "100");
		server = ZooKeeperTestSupport.server();
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@Override
	protected ZooKeeperLockProvider createProvider() throws Exception {
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

	/**
	 * ZooKeeper keeps a lock as an ephemeral node of its holder's session, and no node
	 * expires at a given time, so a hold ends with the holder's session
	 * (docs/hold-at-least.md): a holder that crashed keeps the lock until its session
	 * expires, not for the rest of its hold. Here the session of a holder that stopped
	 * talking is expired by the server, and the lock is free at once, before the hold is
	 * over.
	 */
	@Override
	protected void assertHoldOutlivesAHolderThatStopsTalkingToTheBackend() throws Exception {
		LockTemplate first = newProcess();
		CuratorFramework holderClient = this.clients.get(this.clients.size() - 1);
		LockTemplate second = newProcess();
		String key = key("crash");
		Duration hold = Duration.ofSeconds(20);
		first.acquire(LockRequest.builder(key).holdAtLeast(hold).build());
		long expired = System.nanoTime();
		holderClient.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
		try (Lease lease = second.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(10)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - expired))
				.as("the lock of a holder whose session expired is free before its hold is over")
				.isLessThan(hold);
		}
	}

}
