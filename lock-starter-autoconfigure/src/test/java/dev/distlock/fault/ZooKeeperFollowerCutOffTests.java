package dev.distlock.fault;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder whose client talks to a follower that is cut off from the leader. The follower
 * keeps answering the client (pings, reads) until it gives up on the leader after
 * {@code syncLimit × tickTime}, here {@value #FOLLOWER_GIVES_UP_MS} ms, while the leader
 * hears nothing of the session, expires it after {@value #SESSION_TIMEOUT_MS} ms and
 * deletes its nodes. The holder of a fixed lease that outlives the session must learn it
 * lost the lock within about half the session timeout of the last answer the leader
 * ordered, and before another client is granted the key.
 * <p>
 * Every server reaches every other's quorum port through a proxy of its own (each server
 * has its own view of the ensemble), so the link from one follower to the leader can go
 * silent while the rest of the ensemble keeps its quorum.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperFollowerCutOffTests {

	private static final int TICK_MS = 500;

	private static final int SYNC_LIMIT_TICKS = 60;

	private static final int FOLLOWER_GIVES_UP_MS = TICK_MS * SYNC_LIMIT_TICKS;

	private static final int SESSION_TIMEOUT_MS = 8_000;

	private final List<InstanceSpec> specs = new ArrayList<>();

	/** The proxy each server (by id) goes through to reach each other server (by id). */
	private final Map<Integer, Map<Integer, TcpProxy>> quorumLinks = new HashMap<>();

	private final List<CuratorFramework> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private TestingCluster cluster;

	@AfterEach
	void stop() throws IOException {
		this.quorumLinks.values().forEach((links) -> links.values().forEach(TcpProxy::heal));
		this.templates.forEach(LockTemplate::close);
		this.clients.forEach(CuratorFramework::close);
		if (this.cluster != null) {
			this.cluster.close();
		}
		for (Map<Integer, TcpProxy> links : this.quorumLinks.values()) {
			for (TcpProxy link : links.values()) {
				link.close();
			}
		}
	}

	@Test
	void holderBehindACutOffFollowerIsToldLostBeforeAnotherClientIsGranted() throws Exception {
		startCluster();
		InstanceSpec leader = leader();
		InstanceSpec follower = this.specs.stream().filter((spec) -> spec != leader).findFirst().orElseThrow();
		LockTemplate holder = process(client(follower));
		LockTemplate other = process(client(leader));

		AtomicLong lostAt = new AtomicLong();
		CountDownLatch lost = new CountDownLatch(1);
		Lease held = holder.acquire(LockRequest.builder("job").lease(Duration.ofMinutes(2)).build());
		held.onLost(() -> {
			lostAt.set(System.nanoTime());
			lost.countDown();
		});
		AtomicLong grantedAt = new AtomicLong();
		CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
			Lease lease = other.acquire(LockRequest.builder("job").waitTime(Duration.ofSeconds(60)).build());
			grantedAt.set(System.nanoTime());
			return lease;
		});
		// the waiter's node is queued behind the holder's before the cut
		ZooKeeperTestSupport.awaitLockNodes(this.clients.get(1), "/distlock", 2);
		assertThat(held.isValid()).as("held before the cut").isTrue();

		long cut = System.nanoTime();
		this.quorumLinks.get(follower.getServerId()).get(leader.getServerId()).cut();

		assertThat(lost.await(60, TimeUnit.SECONDS)).as("the holder is told its lease is lost").isTrue();
		Lease successor = next.get(60, TimeUnit.SECONDS);
		long lostMillis = TimeUnit.NANOSECONDS.toMillis(lostAt.get() - cut);
		long grantedMillis = TimeUnit.NANOSECONDS.toMillis(grantedAt.get() - cut);
		assertThat(lostMillis)
			.as("ms from the cut until the holder is told it lost the lock (the other client got it after %d ms)",
					grantedMillis)
			.isLessThan(grantedMillis)
			.isLessThan(SESSION_TIMEOUT_MS * 3L / 4);
		assertThat(grantedMillis).as("ms from the cut until the other client is granted")
			.isLessThan(FOLLOWER_GIVES_UP_MS);
		assertThat(successor.fencingToken()).isGreaterThan(held.fencingToken());
		successor.release();
	}

	private void startCluster() throws IOException {
		Map<String, Object> properties = Map.of("syncLimit", String.valueOf(SYNC_LIMIT_TICKS), "initLimit",
				String.valueOf(SYNC_LIMIT_TICKS));
		for (int id = 1; id <= 3; id++) {
			this.specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, -1, properties, "127.0.0.1"));
		}
		Map<InstanceSpec, java.util.Collection<InstanceSpec>> views = new LinkedHashMap<>();
		for (InstanceSpec viewer : this.specs) {
			Map<Integer, TcpProxy> links = new HashMap<>();
			List<InstanceSpec> view = new ArrayList<>();
			for (InstanceSpec target : this.specs) {
				if (target == viewer) {
					view.add(viewer);
					continue;
				}
				TcpProxy link = TcpProxy.start(target.getQuorumPort());
				links.put(target.getServerId(), link);
				view.add(new InstanceSpec(target.getDataDirectory(), target.getPort(), target.getElectionPort(),
						link.port(), false, target.getServerId(), TICK_MS, -1, properties, "127.0.0.1"));
			}
			this.quorumLinks.put(viewer.getServerId(), links);
			views.put(viewer, view);
		}
		this.cluster = new TestingCluster(views);
		try {
			this.cluster.start();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not start the ensemble", ex);
		}
	}

	private CuratorFramework client(InstanceSpec server) throws InterruptedException {
		CuratorFramework client = ZooKeeperTestSupport.client("127.0.0.1:" + server.getPort(), SESSION_TIMEOUT_MS);
		this.clients.add(client);
		return client;
	}

	private LockTemplate process(CuratorFramework client) {
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client);
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix("cutoff:").withCallTimeout(Duration.ofSeconds(5)), List.of());
		this.templates.add(template);
		return template;
	}

	private InstanceSpec leader() throws InterruptedException {
		return ZooKeeperTestSupport.leader(this.specs, Duration.ofSeconds(60));
	}

}
