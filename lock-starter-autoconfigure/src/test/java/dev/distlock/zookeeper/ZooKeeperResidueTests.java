package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What released locks leave behind: the common case of a lock per business object, many
 * distinct keys each locked once. The queue nodes go with the release; the key and lock
 * nodes are containers that the server's reaper deletes once empty, every
 * {@code znode.container.checkIntervalMs} (a minute by default,
 * {@value #REAP_INTERVAL_MS} ms here). Fencing tokens are creation zxids, so a key locked
 * again after its nodes were reaped still gets a higher one.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZooKeeperResidueTests {

	private static final int KEYS = 2_000;

	private static final int REAP_INTERVAL_MS = 250;

	private final String basePath = "/residue-" + UUID.randomUUID().toString().substring(0, 8);

	private TestingServer server;

	private CuratorFramework client;

	private LockTemplate template;

	@BeforeEach
	void startServer() throws Exception {
		// the reaper reads these when the server starts; no limit on deletions per
		// minute, so one pass clears a level
		String interval = System.setProperty("znode.container.checkIntervalMs", Integer.toString(REAP_INTERVAL_MS));
		String rate = System.setProperty("znode.container.maxPerMinute", "100000000");
		try {
			this.server = ZooKeeperTestSupport.server();
		}
		finally {
			restore("znode.container.checkIntervalMs", interval);
			restore("znode.container.maxPerMinute", rate);
		}
		this.client = ZooKeeperTestSupport.client(this.server.getConnectString());
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(this.client, this.basePath);
		this.template = new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults().withKeyPrefix(""),
				List.of());
	}

	private static void restore(String property, String value) {
		if (value != null) {
			System.setProperty(property, value);
		}
		else {
			System.clearProperty(property);
		}
	}

	@AfterEach
	void stopServer() throws Exception {
		this.template.close();
		this.client.close();
		this.server.close();
	}

	@Test
	void releasedLocksOfDistinctKeysLeaveNoNodeAfterTheReapIntervalAndTokensStillRise() throws Exception {
		String prefix = "order:";
		long firstToken = 0;
		for (int i = 0; i < KEYS; i++) {
			Lease lease = this.template.acquire(LockRequest.builder(prefix + i).waitTime(Duration.ZERO).build());
			if (i == 0) {
				firstToken = lease.fencingToken();
			}
			lease.release();
		}
		assertThat(ZooKeeperTestSupport.lockNodes(this.client, this.basePath, "")).as("queue nodes after the releases")
			.isEmpty();
		// the key and lock nodes stay until the reaper passes: the lock node first, then
		// the key, then the base path
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REAP_INTERVAL_MS * 20L);
		Stat base;
		while ((base = this.client.checkExists().forPath(this.basePath)) != null) {
			assertThat(System.nanoTime() - deadline)
				.as("%s still has %d children %d ms after the last release", this.basePath, base.getNumChildren(),
						REAP_INTERVAL_MS * 20L)
				.isNegative();
			Thread.sleep(50);
		}

		Lease again = this.template.acquire(LockRequest.builder(prefix + 0).waitTime(Duration.ZERO).build());
		assertThat(again.fencingToken()).as("token of a key locked again after its nodes were reaped")
			.isGreaterThan(firstToken);
		again.release();
	}

}
