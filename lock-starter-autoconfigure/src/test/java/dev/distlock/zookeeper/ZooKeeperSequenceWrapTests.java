package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.server.DataNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue past the end of a lock node's sequence counter. ZooKeeper names a sequential
 * node after its parent's child version, a signed 32-bit counter; ZooKeeper 3.9 stops
 * counting at {@code 2147483647} and gives every later node that suffix (older servers
 * wrapped to negative ones), so after 2^31 creations under one lock node the names no
 * longer tell the order. The server test sets the counter there directly in the server's
 * data tree; the other tests check the ordering rules on names alone.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperSequenceWrapTests {

	private static final String LAST_SUFFIX = "-" + Integer.MAX_VALUE;

	private static final String PROTECTED_A = "_c_0e1f8a8e-64d2-4cb3-8f3c-2d1b9e0f6a11-";

	private static final String PROTECTED_B = "_c_9a0b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d-";

	private final String basePath = "/wrap-" + UUID.randomUUID().toString().substring(0, 8);

	private final List<CuratorFramework> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private ZooKeeperTestSupport.TreeServer server;

	@BeforeEach
	void startServer() throws Exception {
		this.server = new ZooKeeperTestSupport.TreeServer();
	}

	@AfterEach
	void stopServer() throws Exception {
		this.executor.shutdownNow();
		this.templates.forEach(LockTemplate::close);
		this.clients.forEach(CuratorFramework::close);
		this.server.close();
	}

	private LockTemplate process() throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(this.server.connectString());
		this.clients.add(client);
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(""), List.of());
		this.templates.add(template);
		return template;
	}

	private static LockRequest tryOnce(String key) {
		return LockRequest.builder(key).type(LockType.MUTEX).waitTime(Duration.ZERO).build();
	}

	@Test
	void locksAreGrantedInCreationOrderAfterTheSequenceCounterRanOut() throws Exception {
		LockTemplate a = process();
		LockTemplate b = process();
		LockTemplate c = process();
		a.acquire(tryOnce("hot")).release();
		String lockPath = new LockNodePaths(this.basePath).lockPath("hot", LockType.MUTEX);
		// what 2^31 creations under the lock node leave: its counter at the last value.
		// (The server logs a digest mismatch for the first node created past it: its own
		// bookkeeping disagrees about the wrapped count.)
		DataNode lockNode = this.server.tree().getNode(lockPath);
		this.server.tree().setCversionPzxid(lockPath, Integer.MAX_VALUE, lockNode.stat.getPzxid());

		Lease held = a.acquire(tryOnce("hot"));
		assertThat(nodes()).singleElement().asString().endsWith(LAST_SUFFIX);
		for (int i = 0; i < 20; i++) {
			// each try queues a node with the same suffix as the holder's; only creation
			// order puts it behind
			Optional<Lease> intruder = b.tryAcquire(tryOnce("hot"));
			intruder.ifPresent(Lease::release);
			assertThat(intruder).as("try %d got the lock held by another (token %d)", i, held.fencingToken()).isEmpty();
		}
		LockRequest waiting = LockRequest.builder("hot").waitTime(Duration.ofSeconds(30)).build();
		Future<Lease> second = this.executor.submit(() -> b.acquire(waiting));
		awaitNodes(2);
		Future<Lease> third = this.executor.submit(() -> c.acquire(waiting));
		awaitNodes(3);
		assertThat(nodes()).as("every node has the same suffix").allMatch((node) -> node.endsWith(LAST_SUFFIX));

		held.release();
		Lease secondLease = second.get(20, TimeUnit.SECONDS);
		// give a wrongly ordered third waiter the time to take the lock too
		Thread.sleep(500);
		assertThat(third).as("the later waiter is still waiting").isNotDone();
		secondLease.release();
		Lease thirdLease = third.get(20, TimeUnit.SECONDS);
		assertThat(List.of(held.fencingToken(), secondLease.fencingToken(), thirdLease.fencingToken())).isSorted()
			.doesNotHaveDuplicates();
		thirdLease.release();
		assertThat(nodes()).isEmpty();
	}

	private List<String> nodes() {
		return ZooKeeperTestSupport.lockNodes(this.clients.get(0), this.basePath, "");
	}

	private void awaitNodes(int count) throws InterruptedException {
		ZooKeeperTestSupport.awaitLockNodes(this.clients.get(0), this.basePath, count);
	}

	@Test
	void sequenceNumbersOrderTheQueueUntilTheCounterRunsOut() {
		List<LockQueue.Node> normal = LockQueue.sorted(List.of("lock-2147483646", "lock-0000000007"));
		assertThat(LockQueue.sequenceExhausted(normal)).isFalse();
		assertThat(normal).extracting(LockQueue.Node::name).containsExactly("lock-0000000007", "lock-2147483646");

		// ZooKeeper 3.9 repeats the last value; protected mode keeps the names apart,
		// nothing else tells the order
		String first = PROTECTED_A + "lock-2147483647";
		String second = PROTECTED_B + "lock-2147483647";
		List<LockQueue.Node> stuck = LockQueue.sorted(List.of(second, "lock-2147483646", first));
		assertThat(LockQueue.sequenceExhausted(stuck)).isTrue();
		List<LockQueue.Node> byCreation = LockQueue.inCreationOrder(stuck,
				Map.of("lock-2147483646", 10L, second, 11L, first, 12L));
		assertThat(byCreation).extracting(LockQueue.Node::name).containsExactly("lock-2147483646", second, first);
		assertThat(LockQueue.position(byCreation, first, LockType.MUTEX, 1).watch()).containsExactly(second);
	}

	@Test
	void wrappedNegativeSequenceNumbersQueueBehindTheHighOnes() {
		// older servers wrapped: %010d of a negative int carries its minus sign
		List<LockQueue.Node> wrapped = LockQueue
			.sorted(List.of("write--2147483648", "read-2147483646", "read--2147483647"));
		assertThat(wrapped.get(0).name()).as("by sequence the newest node comes first").isEqualTo("write--2147483648");
		assertThat(LockQueue.sequenceExhausted(wrapped)).isTrue();
		// the newest node was deleted before its czxid was read: it is left out
		List<LockQueue.Node> byCreation = LockQueue.inCreationOrder(wrapped,
				Map.of("read-2147483646", 5L, "write--2147483648", 6L));
		assertThat(byCreation).extracting(LockQueue.Node::name).containsExactly("read-2147483646", "write--2147483648");
		assertThat(LockQueue.position(byCreation, "read-2147483646", LockType.READ, 1).granted()).isTrue();
		assertThat(LockQueue.position(byCreation, "write--2147483648", LockType.WRITE, 1).granted()).isFalse();
	}

}
