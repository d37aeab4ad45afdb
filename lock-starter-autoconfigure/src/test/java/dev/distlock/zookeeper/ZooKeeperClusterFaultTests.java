package dev.distlock.zookeeper;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Faults on a real three-server ensemble: a leader change keeps a held lock (same
 * session, nodes survive), and a session that the servers expire loses it, tells the
 * holder and lets the next client in.
 */
@Tag("fault")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperClusterFaultTests {

	private static final int SESSION_TIMEOUT_MS = 20_000;

	private TestingCluster cluster;

	private final List<CuratorFramework> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeEach
	void startCluster() throws Exception {
		this.cluster = ZooKeeperTestSupport.cluster(3);
		this.cluster.start();
	}

	@AfterEach
	void stopCluster() throws Exception {
		this.executor.shutdownNow();
		this.templates.forEach(LockTemplate::close);
		this.clients.forEach(CuratorFramework::close);
		this.cluster.close();
	}

	/**
	 * The watchdog's lease: as long as the session timeout, so that a leader election on
	 * a busy machine (seconds, in which no renewal gets through) ends well within it. A 6
	 * s lease leaves 4 s after a renewal due just before the leader dies, which an
	 * election on two loaded cores can overrun.
	 */
	private static final Duration LEASE = Duration.ofMillis(SESSION_TIMEOUT_MS);

	private LockTemplate process(CuratorFramework client) {
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client);
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix("fault:").withWatchdog(LEASE, null), List.of());
		this.templates.add(template);
		return template;
	}

	private CuratorFramework client() throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(this.cluster.getConnectString(), SESSION_TIMEOUT_MS);
		this.clients.add(client);
		return client;
	}

	@Test
	void lockSurvivesTheLossOfTheLeader() throws Exception {
		CuratorFramework holderClient = client();
		LockTemplate holder = process(holderClient);
		LockTemplate other = process(client());
		long session = holderClient.getZookeeperClient().getZooKeeper().getSessionId();
		Lease held = holder.acquire(LockRequest.builder("leader").waitTime(Duration.ZERO).build());
		InstanceSpec leader = leader();
		long killed = System.nanoTime();
		assertThat(this.cluster.killServer(leader)).as("leader killed").isTrue();
		awaitLeader();
		awaitConnected(holderClient);
		long reconnectedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
		// a renewal through the new leader moves the lease's end; the watchdog renews a
		// third of the lease after the last renewal, so one is due within that (expiresAt
		// reads two clocks, so a move of less than a second is not a renewal)
		Instant before = held.expiresAt().plusSeconds(1);
		long deadline = System.nanoTime() + LEASE.toNanos();
		while (!held.expiresAt().isAfter(before) && held.isValid() && System.nanoTime() < deadline) {
			Thread.sleep(100);
		}
		assertThat(held.isValid())
			.as("lease still valid after the leader change (reconnected %d ms after the kill)", reconnectedMillis)
			.isTrue();
		assertThat(held.expiresAt()).as("lease renewed through the new leader").isAfter(before);
		assertThat(holderClient.getZookeeperClient().getZooKeeper().getSessionId()).as("same session")
			.isEqualTo(session);
		assertThat(other.tryAcquire(LockRequest.builder("leader").waitTime(Duration.ZERO).build()))
			.as("another client while the lock is held")
			.isEmpty();
		held.release();
		Lease next = other.acquire(LockRequest.builder("leader").waitTime(Duration.ofSeconds(10)).build());
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		next.release();
	}

	@Test
	void expiredSessionLosesTheLockAndLetsTheNextClientIn() throws Exception {
		CuratorFramework holderClient = client();
		LockTemplate holder = process(holderClient);
		LockTemplate other = process(client());
		CountDownLatch lost = new CountDownLatch(1);
		Lease held = holder.acquire(LockRequest.builder("expiry").waitTime(Duration.ZERO).build());
		held.onLost(lost::countDown);
		Future<Lease> waiter = this.executor
			.submit(() -> other.acquire(LockRequest.builder("expiry").waitTime(Duration.ofSeconds(60)).build()));
		Thread.sleep(500);
		assertThat(waiter.isDone()).as("waiter blocks while the lock is held").isFalse();
		expireOnTheServers(holderClient);
		assertThat(lost.await(30, TimeUnit.SECONDS)).as("holder told its lease is lost").isTrue();
		assertThat(held.isValid()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> holder.checkNotLost(held))
			.withMessageContaining("session");
		Lease next = waiter.get(30, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		held.release();
		assertThat(other.tryAcquire(LockRequest.builder("expiry").waitTime(Duration.ZERO).build()).map((l) -> {
			l.release();
			return l;
		})).as("the stale release left the successor's lock alone").isEmpty();
		next.release();
		Optional<Lease> after = holder
			.tryAcquire(LockRequest.builder("expiry").waitTime(Duration.ofSeconds(10)).build());
		assertThat(after).as("the old holder gets the lock again on its new session").isPresent();
		after.get().release();
	}

	/**
	 * Expires a session on the servers, as a long partition would: another handle with
	 * the same id and password closes it (Curator's KillSession only expires the client's
	 * side).
	 */
	private void expireOnTheServers(CuratorFramework client) throws Exception {
		ZooKeeper zookeeper = client.getZookeeperClient().getZooKeeper();
		CountDownLatch connected = new CountDownLatch(1);
		ZooKeeper twin = new ZooKeeper(this.cluster.getConnectString(), SESSION_TIMEOUT_MS, (event) -> {
			if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
				connected.countDown();
			}
		}, zookeeper.getSessionId(), zookeeper.getSessionPasswd());
		try {
			assertThat(connected.await(20, TimeUnit.SECONDS)).as("second handle on the session").isTrue();
		}
		finally {
			twin.close();
		}
	}

	private InstanceSpec leader() throws Exception {
		return ZooKeeperTestSupport.leader(this.cluster.getInstances(), Duration.ofSeconds(20));
	}

	private void awaitLeader() throws Exception {
		leader();
	}

	private static void awaitConnected(CuratorFramework client) throws InterruptedException {
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).as("client reconnected").isTrue();
	}

}
