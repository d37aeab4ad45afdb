package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * While the leader answers, the session check keeps held locks: a fixed lease held for
 * several session timeouts with nothing else sent, and a lock granted by a watch event
 * after a wait longer than half the session timeout (its node is checked through the
 * leader before the grant), both stay valid. A 2 s session on a server with a 500 ms
 * tick.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperSessionCheckTests {

	private static final int SESSION_TIMEOUT_MS = 2_000;

	private TestingServer server;

	private CuratorFramework holderClient;

	private CuratorFramework waiterClient;

	private LockTemplate holder;

	private LockTemplate waiter;

	@BeforeEach
	void start() throws Exception {
		this.server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
		this.holderClient = ZooKeeperTestSupport.client(this.server.getConnectString(), SESSION_TIMEOUT_MS);
		this.waiterClient = ZooKeeperTestSupport.client(this.server.getConnectString(), SESSION_TIMEOUT_MS);
		this.holder = template(this.holderClient);
		this.waiter = template(this.waiterClient);
	}

	@AfterEach
	void stop() throws Exception {
		this.holder.close();
		this.waiter.close();
		this.holder.defaultProvider().close();
		this.waiter.defaultProvider().close();
		this.holderClient.close();
		this.waiterClient.close();
		this.server.close();
	}

	private static LockTemplate template(CuratorFramework client) {
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client);
		return new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix("session-check:").withCallTimeout(Duration.ofSeconds(5)),
				List.of());
	}

	@Test
	void fixedLeaseOutlivesSeveralSessionTimeoutsWhileTheLeaderAnswers() throws Exception {
		Lease held = this.holder.acquire(LockRequest.builder("long").lease(Duration.ofSeconds(30)).build());
		// the hold itself: three session timeouts with no request but the session check
		TimeUnit.MILLISECONDS.sleep(3L * SESSION_TIMEOUT_MS);
		assertThat(held.isValid()).as("a fixed lease held for three session timeouts").isTrue();
		assertThat(this.waiter.tryAcquire(LockRequest.builder("long").waitTime(Duration.ZERO).build()))
			.as("another client while it is held")
			.isEmpty();
		held.release();
	}

	@Test
	void lockGrantedAfterALongWaitIsKept() throws Exception {
		Lease first = this.holder.acquire(LockRequest.builder("handover").lease(Duration.ofSeconds(30)).build());
		CompletableFuture<Lease> next = CompletableFuture
			.supplyAsync(() -> this.waiter.acquire(LockRequest.builder("handover")
				.lease(Duration.ofSeconds(30))
				.waitTime(Duration.ofSeconds(30))
				.build()));
		ZooKeeperTestSupport.awaitLockNodes(this.holderClient, "/distlock", 2);
		// the waiter waits longer than half the session timeout, with only reads and a
		// watch of its own
		TimeUnit.MILLISECONDS.sleep(SESSION_TIMEOUT_MS);
		first.release();
		Lease second = next.get(30, TimeUnit.SECONDS);
		TimeUnit.MILLISECONDS.sleep(SESSION_TIMEOUT_MS);
		assertThat(second.isValid()).as("the lock granted after the wait, a session timeout later").isTrue();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		second.release();
	}

}
