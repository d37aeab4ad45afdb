package dev.distlock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockIntegrationAutoConfiguration;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.integration.DistlockLockRegistry;
import dev.distlock.integration.LeaseLock;
import dev.distlock.test.LockHistory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} on the auto-configured
 * {@link DistlockLockRegistry}, one application context per node (each with its own
 * backend client), on every distributed backend: exactly one leader at a time as leaders
 * stop and new nodes join, each term's fencing token above the last. The leader lock's
 * holds are recorded (start once the lock is granted, end before it is released) and
 * checked as a history.
 */
@Timeout(120)
class LockRegistryLeaderInitiatorTests {

	private static IntegrationTestServers servers;

	private final String role = "si-leader-" + UUID.randomUUID().toString().substring(0, 8);

	private final LockHistory history = new LockHistory();

	/** The fencing token each node saw when it was granted leadership, in grant order. */
	private final List<Long> termTokens = new ArrayList<>();

	@BeforeAll
	static void startServers() throws Exception {
		servers = new IntegrationTestServers();
	}

	@AfterAll
	static void stopServers() throws Exception {
		servers.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "redisson", "jdbc", "zookeeper", "etcd" })
	void oneLeaderAtATimeAcrossApplicationContextsWithRisingTermTokens(String backend) throws Exception {
		Node first = start(backend, "node-1");
		Node second = start(backend, "node-2");
		Node leader = awaitSoleLeader(List.of(first, second));
		Node follower = (leader == first) ? second : first;
		Thread.sleep(1000);
		assertThat(leaders(List.of(first, second))).as("leaders after a second of heartbeats").containsExactly(leader);

		leader.close();
		assertThat(awaitSoleLeader(List.of(follower))).isSameAs(follower);
		Node third = start(backend, "node-3");
		Thread.sleep(500);
		assertThat(leaders(List.of(follower, third))).as("leaders once a third node joined").containsExactly(follower);

		follower.close();
		assertThat(awaitSoleLeader(List.of(third))).isSameAs(third);
		third.close();

		assertThat(this.termTokens).as("one term per leader").hasSize(3);
		assertThat(this.termTokens).as("each term's fencing token above the last").isSorted().doesNotHaveDuplicates();
		this.history.assertConsistent();
		assertThat(this.history.size()).as("recorded holds of the leader lock").isEqualTo(3);
	}

	private Node start(String backend, String name) throws Exception {
		LeaderTestBackends.Backend client = servers.backend(backend, Duration.ofSeconds(2));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(NodeConfiguration.class)
			.web(WebApplicationType.NONE)
			.initializers((ctx) -> {
				ctx.getBeanFactory().registerSingleton("lockProvider", client.provider());
				ctx.getBeanFactory().registerSingleton("node", new NodeRecorder(name, this));
			})
			.run("--distlock.watchdog.lease=2s", "--distlock.key-prefix=si:", "--spring.main.banner-mode=off");
		return new Node(name, context, client);
	}

	private static List<Node> leaders(List<Node> nodes) {
		return nodes.stream().filter(Node::isLeader).toList();
	}

	private static Node awaitSoleLeader(List<Node> nodes) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while (System.nanoTime() < deadline) {
			List<Node> leaders = leaders(nodes);
			assertThat(leaders).as("leaders at once").hasSizeLessThanOrEqualTo(1);
			if (leaders.size() == 1) {
				return leaders.get(0);
			}
			Thread.sleep(20);
		}
		throw new AssertionError("No leader among " + nodes + " within 15 s");
	}

	/** One node: an application context with its own backend client. */
	private record Node(String name, ConfigurableApplicationContext context,
			LeaderTestBackends.Backend client) implements AutoCloseable {

		boolean isLeader() {
			return this.context.isActive()
					&& this.context.getBean(LockRegistryLeaderInitiator.class).getContext().isLeader();
		}

		@Override
		public void close() throws Exception {
			this.context.close();
			this.client.close();
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	/**
	 * Records the node's holds of the leader lock and the token of each term it is
	 * granted.
	 */
	record NodeRecorder(String name, LockRegistryLeaderInitiatorTests test) {

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DistlockAutoConfiguration.class, DistlockIntegrationAutoConfiguration.class })
	static class NodeConfiguration {

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> registry, NodeRecorder node,
				LockProvider<?> provider) {
			assertThat(registry).as("the auto-configured registry").isInstanceOf(DistlockLockRegistry.class);
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
					new RecordingRegistry(registry, node), new DefaultCandidate(node.name(), node.test().role) {
						@Override
						public void onGranted(Context context) {
							LeaseLock lock = (LeaseLock) registry.obtain(getRole());
							long token = lock.lease().orElseThrow().fencingToken();
							synchronized (node.test().termTokens) {
								node.test().termTokens.add(token);
							}
						}
					});
			initiator.setHeartBeatMillis(100);
			initiator.setBusyWaitMillis(50);
			return initiator;
		}

	}

	/** A registry whose locks record each outermost hold in the test's history. */
	private record RecordingRegistry(LockRegistry<?> delegate, NodeRecorder node) implements LockRegistry<Lock> {

		@Override
		public Lock obtain(Object lockKey) {
			LeaseLock lock = (LeaseLock) this.delegate.obtain(lockKey);
			return new RecordingLock(lock, this.node);
		}

	}

	/**
	 * Records a hold from when its outermost acquisition returned to just before its
	 * outermost release.
	 */
	private static final class RecordingLock implements Lock {

		private final LeaseLock lock;

		private final NodeRecorder node;

		private int depth;

		private long requested;

		private long start;

		private long token;

		RecordingLock(LeaseLock lock, NodeRecorder node) {
			this.lock = lock;
			this.node = node;
		}

		private boolean acquired(long requested, boolean acquired) {
			if (acquired && this.depth++ == 0) {
				this.requested = requested;
				this.start = System.nanoTime();
				this.token = this.lock.lease().orElseThrow().fencingToken();
			}
			return acquired;
		}

		@Override
		public void lock() {
			long requested = System.nanoTime();
			this.lock.lock();
			acquired(requested, true);
		}

		@Override
		public void lockInterruptibly() throws InterruptedException {
			long requested = System.nanoTime();
			this.lock.lockInterruptibly();
			acquired(requested, true);
		}

		@Override
		public boolean tryLock() {
			return acquired(System.nanoTime(), this.lock.tryLock());
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
			return acquired(System.nanoTime(), this.lock.tryLock(time, unit));
		}

		@Override
		public void unlock() {
			if (--this.depth == 0) {
				this.node.test().history.record(new LockHistory.Hold(this.lock.key(), LockType.MUTEX, 1, this.token,
						this.node.name(), this.requested, this.start, System.nanoTime()));
			}
			this.lock.unlock();
		}

		@Override
		public Condition newCondition() {
			return this.lock.newCondition();
		}

	}

}
