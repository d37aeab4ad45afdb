package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.test.ForwardingLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.EphemeralType;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the ZooKeeper backend promises beyond the shared contract: key encoding on a real
 * server, herd-free semaphore hand-over, fencing across a reaped lock node, and no orphan
 * node after a release or a loss while disconnected.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperLockProviderTests {

	private static TestingServer server;

	private static CuratorFramework admin;

	private final String basePath = "/t-" + UUID.randomUUID().toString().substring(0, 8);

	private final List<CuratorFramework> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeAll
	static void startServer() throws Exception {
		server = ZooKeeperTestSupport.server();
		admin = ZooKeeperTestSupport.client(server.getConnectString());
	}

	@AfterAll
	static void stopServer() throws Exception {
		admin.close();
		server.close();
	}

	@AfterEach
	void close() throws Exception {
		this.executor.shutdownNow();
		this.templates.forEach(LockTemplate::close);
		this.clients.forEach(CuratorFramework::close);
	}

	private LockTemplate process() throws Exception {
		return process(ZooKeeperLockProvider.RECHECK, Duration.ofSeconds(30));
	}

	private LockTemplate process(Duration recheck, Duration watchdogLease) throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString());
		this.clients.add(client);
		return template(new ZooKeeperLockProvider(client, this.basePath, recheck), watchdogLease);
	}

	private LockTemplate template(ZooKeeperLockProvider provider) {
		return template(provider, Duration.ofSeconds(30));
	}

	private LockTemplate template(ZooKeeperLockProvider provider, Duration watchdogLease) {
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix("").withWatchdog(watchdogLease, null), List.of());
		this.templates.add(template);
		return template;
	}

	private List<String> lockNodes() {
		return ZooKeeperTestSupport.lockNodes(admin, this.basePath, "");
	}

	private static LockRequest tryOnce(String key, LockType type) {
		return LockRequest.builder(key).type(type).waitTime(Duration.ZERO).build();
	}

	@Test
	void awkwardKeysAreSeparateLocksInsideTheBasePath() throws Exception {
		LockTemplate a = process();
		LockTemplate b = process();
		List<String> keys = LockNodePathsTests.awkwardKeys().stream().filter((k) -> !k.isBlank()).toList();
		List<Lease> leases = new ArrayList<>();
		for (String key : keys) {
			leases.add(a.tryAcquire(tryOnce(key, LockType.MUTEX))
				.orElseThrow(() -> new AssertionError("another key's lock blocked " + key.length() + "-char key")));
		}
		List<String> nodes = lockNodes();
		assertThat(nodes).as("one node per key, all under the base path")
			.hasSize(keys.size())
			.allMatch((path) -> path.startsWith(this.basePath + "/") && path.split("/").length == 5);
		List<String> stored = new ArrayList<>();
		for (String node : nodes) {
			String data = new String(admin.getData().forPath(node), StandardCharsets.UTF_8);
			stored.add(data.substring(data.indexOf("\nkey=") + 5));
		}
		// an unpaired surrogate has no UTF-8 form, so only the path (not the data) can
		// tell that key apart
		assertThat(stored).as("each node keeps its full key")
			.containsAll(keys.stream().filter((k) -> !k.equals("\uD800")).toList());
		for (String key : keys) {
			assertThat(b.tryAcquire(tryOnce(key, LockType.MUTEX))).as("held key stays held").isEmpty();
		}
		leases.forEach(Lease::release);
		assertThat(lockNodes()).isEmpty();
		assertThat(admin.getChildren().forPath("/")).as("nothing created outside the base paths")
			.allMatch((name) -> name.equals("zookeeper") || name.startsWith("t-"));
	}

	@Test
	void newKeysGetContainerNodesAndAnotherFamilyOfAKeyInUseStillQueues() throws Exception {
		try (ZooKeeperTestSupport.TreeServer tree = new ZooKeeperTestSupport.TreeServer()) {
			CuratorFramework client = ZooKeeperTestSupport.client(tree.connectString());
			this.clients.add(client);
			ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
			LockTemplate template = template(provider);
			// the first lock creates the base path; later new keys get their key's and
			// lock's nodes in one transaction
			template.tryAcquire(tryOnce("first", LockType.MUTEX)).orElseThrow().release();
			Lease mutex = template.tryAcquire(tryOnce("k", LockType.MUTEX)).orElseThrow();
			// the key's node exists now, its read-write family does not
			Lease read = template.tryAcquire(tryOnce("k", LockType.READ)).orElseThrow();
			Lease permit = template
				.tryAcquire(
						LockRequest.builder("k").type(LockType.SEMAPHORE).permits(2).waitTime(Duration.ZERO).build())
				.orElseThrow();
			String mutexPath = provider.paths().lockPath("k", LockType.MUTEX);
			String keyPath = ZKPaths.getPathAndNode(mutexPath).getPath();
			for (String path : List.of(keyPath, mutexPath, provider.paths().lockPath("k", LockType.READ),
					provider.paths().lockPath("k", LockType.SEMAPHORE))) {
				DataNode node = tree.tree().getNode(path);
				assertThat(node).as(path).isNotNull();
				assertThat(EphemeralType.get(node.stat.getEphemeralOwner())).as("%s is reaped once empty", path)
					.isEqualTo(EphemeralType.CONTAINER);
			}
			assertThat(ZooKeeperTestSupport.lockNodes(client, this.basePath, "")).hasSize(3);
			CuratorFramework other = ZooKeeperTestSupport.client(tree.connectString());
			this.clients.add(other);
			assertThat(
					template(new ZooKeeperLockProvider(other, this.basePath)).tryAcquire(tryOnce("k", LockType.WRITE)))
				.as("a reader holds k")
				.isEmpty();
			mutex.release();
			read.release();
			permit.release();
			assertThat(ZooKeeperTestSupport.lockNodes(client, this.basePath, "")).isEmpty();
		}
	}

	@Test
	void lockNobodyElseWantsTakesOneRequestANewKeysTwoAndTheTokenIsTheNodesCreationZxid() throws Exception {
		try (ZooKeeperTestSupport.TreeServer tree = new ZooKeeperTestSupport.TreeServer()) {
			// a minute's session: no ping while the requests are counted
			CuratorFramework client = ZooKeeperTestSupport.client(tree.connectString(), 60_000);
			this.clients.add(client);
			ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
			LockTemplate template = template(provider);
			LockRequest request = LockRequest.builder("solo")
				.lease(Duration.ofMinutes(1))
				.waitTime(Duration.ZERO)
				.build();
			// creates the base path
			template.tryAcquire(LockRequest.builder("first").waitTime(Duration.ZERO).build()).orElseThrow().release();
			// a new key: a transaction that fails for want of the lock node, then one
			// that creates the key's and the lock's nodes with the queued one (they stay:
			// this server reaps no container); release: one more
			assertThat(requests(tree, () -> template.tryAcquire(request).orElseThrow().release()))
				.as("requests to take and release a new key's lock")
				.isEqualTo(3);
			// the last key was new: the next is taken to be new too
			assertThat(requests(tree,
					() -> template.tryAcquire(LockRequest.builder("solo2").waitTime(Duration.ZERO).build())
						.orElseThrow()
						.release()))
				.as("requests for a second new key in a row")
				.isEqualTo(2);
			// a key this provider queued in lately: its lock node is taken to exist
			for (int i = 0; i < 2; i++) {
				assertThat(requests(tree, () -> template.tryAcquire(request).orElseThrow().release()))
					.as("requests for a key this provider used lately, after new keys")
					.isEqualTo(2);
			}
			// a key in use by another process only: until keys in use outweigh the new
			// ones, it costs the failed guess once, then this provider knows it
			CuratorFramework elsewhere = ZooKeeperTestSupport.client(tree.connectString(), 60_000);
			this.clients.add(elsewhere);
			LockRequest shared = LockRequest.builder("shared").waitTime(Duration.ZERO).build();
			template(new ZooKeeperLockProvider(elsewhere, this.basePath)).tryAcquire(shared).orElseThrow().release();
			assertThat(requests(tree, () -> template.tryAcquire(shared).orElseThrow().release()))
				.as("requests for a key only another process used, after new keys")
				.isEqualTo(3);
			assertThat(requests(tree, () -> template.tryAcquire(shared).orElseThrow().release()))
				.as("requests for that key again")
				.isEqualTo(2);
			String lockPath = provider.paths().lockPath("solo", LockType.MUTEX);
			long before = tree.packetsReceived();
			Lease lease = template.tryAcquire(request).orElseThrow();
			long acquired = tree.packetsReceived();
			List<String> queue = List.copyOf(tree.tree().getNode(lockPath).getChildren());
			assertThat(queue).hasSize(1);
			DataNode node = tree.tree().getNode(lockPath + "/" + queue.get(0));
			assertThat(lease.fencingToken()).as("the token is the node's czxid").isEqualTo(node.stat.getCzxid());
			// another process finds the lock taken: its node was not alone
			CuratorFramework other = ZooKeeperTestSupport.client(tree.connectString(), 60_000);
			this.clients.add(other);
			assertThat(template(new ZooKeeperLockProvider(other, this.basePath)).tryAcquire(request)).isEmpty();
			long beforeRelease = tree.packetsReceived();
			lease.release();
			assertThat(acquired - before).as("requests to take a lock nobody else wants").isEqualTo(1);
			assertThat(tree.packetsReceived() - beforeRelease).as("requests to release it").isEqualTo(1);
			Lease next = template.tryAcquire(request).orElseThrow();
			assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
			next.release();
		}
	}

	private static long requests(ZooKeeperTestSupport.TreeServer tree, ThrowingRunnable calls) throws Exception {
		long before = tree.packetsReceived();
		calls.run();
		return tree.packetsReceived() - before;
	}

	@FunctionalInterface
	private interface ThrowingRunnable {

		void run() throws Exception;

	}

	@Test
	void semaphoreWaiterIsWokenByAnyHolderNotOnlyItsPredecessor() throws Exception {
		// waiters must not need the periodic re-check: make it longer than the test may
		// take
		Duration noRecheck = Duration.ofMinutes(5);
		List<LockTemplate> processes = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			processes.add(process(noRecheck, Duration.ofSeconds(30)));
		}
		// fixed leases: no renewal touches a node, so only the queue's own signals can
		// wake a waiter
		LockRequest twoPermits = LockRequest.builder("sem")
			.type(LockType.SEMAPHORE)
			.permits(2)
			.lease(Duration.ofMinutes(2))
			.waitTime(Duration.ofSeconds(60))
			.build();
		Lease first = processes.get(0).acquire(twoPermits);
		Lease second = processes.get(1).acquire(twoPermits);
		Future<Lease> third = this.executor.submit(() -> processes.get(2).acquire(twoPermits));
		awaitNodes(3);
		Future<Lease> fourth = this.executor.submit(() -> processes.get(3).acquire(twoPermits));
		awaitNodes(4);
		// let the fourth settle into watching the third before the queue moves
		Thread.sleep(1000);
		second.release();
		Lease thirdLease = third.get(20, TimeUnit.SECONDS);
		// the fourth now waits for the first or the third, though it was queued behind
		// the third
		first.release();
		Lease fourthLease = fourth.get(20, TimeUnit.SECONDS);
		assertThat(fourthLease.fencingToken()).isGreaterThan(thirdLease.fencingToken());
		thirdLease.release();
		fourthLease.release();
		assertThat(lockNodes()).isEmpty();
	}

	private void awaitNodes(int count) throws InterruptedException {
		ZooKeeperTestSupport.awaitLockNodes(admin, this.basePath, count);
	}

	@Test
	void fencingTokensKeepIncreasingWhenTheLockNodeIsReaped() throws Exception {
		LockTemplate a = process();
		Lease before = a.acquire(tryOnce("reaped", LockType.MUTEX));
		before.release();
		// what the container reaper does to an empty lock: its sequence numbers start
		// over, czxids do not
		admin.delete().deletingChildrenIfNeeded().forPath(this.basePath);
		Lease after = a.acquire(tryOnce("reaped", LockType.MUTEX));
		assertThat(after.fencingToken()).isGreaterThan(before.fencingToken());
		assertThat(lockNodes()).singleElement().asString().endsWith("lock-0000000000");
		after.release();
	}

	@Test
	void fixedLeaseNobodyListensToEndsOnTimeAndItsNodeGoesForAnotherProcess() throws Exception {
		LockTemplate a = process();
		LockTemplate b = process();
		// no onLost, no execute: only the core's lease clock can end this lease while a's
		// session stays open
		long requested = System.nanoTime();
		Lease forgotten = a
			.acquire(LockRequest.builder("forgotten").lease(Duration.ofMillis(300)).waitTime(Duration.ZERO).build());
		long granted = System.nanoTime();
		Lease next = b.acquire(LockRequest.builder("forgotten").waitTime(Duration.ofSeconds(10)).build());
		long now = System.nanoTime();
		// the lease is counted from when the granting request was sent, so it ends 300 ms
		// after that at the earliest
		assertThat(Duration.ofNanos(now - requested)).as("not before the fixed lease's end")
			.isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(Duration.ofNanos(now - granted)).as("another process gets the lock soon after the lease's end")
			.isLessThan(Duration.ofSeconds(3));
		assertThat(forgotten.isValid()).isFalse();
		assertThat(next.fencingToken()).isGreaterThan(forgotten.fencingToken());
		assertThat(lockNodes()).as("only the new holder's node").hasSize(1);
		next.release();
		forgotten.release();
		assertThat(lockNodes()).isEmpty();
	}

	@Test
	void interruptedWaiterLeavesTheQueue() throws Exception {
		LockTemplate a = process();
		LockTemplate b = process();
		Lease held = a.acquire(tryOnce("interrupt", LockType.FAIR));
		CountDownLatch started = new CountDownLatch(1);
		Future<Optional<Lease>> waiter = this.executor.submit(() -> {
			started.countDown();
			return b.tryAcquire(
					LockRequest.builder("interrupt").type(LockType.FAIR).waitTime(Duration.ofMinutes(1)).build());
		});
		started.await();
		awaitNodes(2);
		waiter.cancel(true);
		awaitNodes(1);
		held.release();
		assertThat(lockNodes()).isEmpty();
		assertThatExceptionOfType(java.util.concurrent.CancellationException.class).isThrownBy(waiter::get);
	}

	@Test
	void backendThatIsDownFailsWithinTheWaitAndOneConnectionTimeout() throws Exception {
		// distlock's default retry policy, which alone takes 4.5 to 6.4 s per call
		// with the server down
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString(), 10_000, 1_000,
				new ExponentialBackoffRetry(200, 3, 5_000));
		this.clients.add(client);
		LockTemplate a = template(new ZooKeeperLockProvider(client, this.basePath));
		Lease held = process().acquire(tryOnce("down-held", LockType.MUTEX));
		Duration wait = Duration.ofSeconds(1);
		// a waiter already queued behind a holder when the server goes, then fresh calls
		Future<Long> queued = this.executor.submit(() -> failureMillis(a, "down-held", Duration.ofSeconds(3)));
		awaitNodes(2);
		server.stop();
		try {
			assertThat(queued.get(10, TimeUnit.SECONDS)).as("ms until a queued waiter (wait 3 s) failed")
				.isLessThan(4_400);
			for (int i = 0; i < 3; i++) {
				assertThat(failureMillis(a, "down-" + i, wait)).as("ms until call %d (wait 1 s) failed", i)
					.isLessThan(2_200);
			}
			assertThat(failureMillis(a, "down-once", Duration.ZERO)).as("ms until a try-once failed").isLessThan(1_100);
		}
		finally {
			server.restart();
		}
		a.acquire(LockRequest.builder("down-0").waitTime(Duration.ofSeconds(20)).build()).release();
		// the holder's client may still be reconnecting: then its delete goes on in the
		// background
		held.release();
		awaitNodes(0);
	}

	private static long failureMillis(LockTemplate template, String key, Duration wait) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> template.acquire(LockRequest.builder(key).waitTime(wait).build()))
			.satisfies((ex) -> assertThat(ex.isTimeout()).as("a backend error, not a wait that ran out").isFalse());
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
	}

	@Test
	void lockingOnTheClientsEventThreadFailsAtOnceInsteadOfWaitingForItself() throws Exception {
		LockTemplate a = process();
		CuratorFramework client = this.clients.get(0);
		// a reply has come, so the provider knows which thread delivers them
		a.acquire(tryOnce("event", LockType.MUTEX)).release();
		CompletableFuture<Throwable> outcome = new CompletableFuture<>();
		Watcher lockingWatcher = (event) -> {
			try {
				a.acquire(LockRequest.builder("event").waitTime(Duration.ofSeconds(30)).build()).release();
				outcome.complete(null);
			}
			catch (Throwable ex) {
				outcome.complete(ex);
			}
		};
		client.checkExists().usingWatcher(lockingWatcher).forPath(this.basePath + "/trigger");
		admin.create().creatingParentsIfNeeded().forPath(this.basePath + "/trigger");
		assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(LockAcquisitionException.class)
			.hasMessageContaining("event thread");
	}

	@Test
	void releaseWhileDisconnectedLeavesNoNodeBehind() throws Exception {
		LockTemplate a = process();
		LockTemplate b = process();
		Lease held = a.acquire(tryOnce("offline", LockType.MUTEX));
		server.stop();
		try {
			long start = System.nanoTime();
			held.release();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("release does not block while disconnected")
				.isLessThan(Duration.ofSeconds(5));
		}
		finally {
			server.restart();
		}
		Lease next = b.acquire(LockRequest.builder("offline").waitTime(Duration.ofSeconds(20)).build());
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		next.release();
		assertThat(lockNodes()).isEmpty();
	}

	@Test
	void leaseInDoubtForTooLongIsReportedLostAndItsNodeDeleted() throws Exception {
		LockTemplate a = process();
		LockTemplate b = process();
		CuratorFramework holderClient = this.clients.get(0);
		long session = holderClient.getZookeeperClient().getZooKeeper().getSessionId();
		CountDownLatch lost = new CountDownLatch(1);
		Lease held = a.acquire(tryOnce("doubt", LockType.MUTEX));
		held.onLost(lost::countDown);
		// the lease stays in doubt until a session timeout (10 s) after the last answered
		// request: idle for a while first, so that it ends well before Curator gives the
		// session up (a timeout after the disconnection)
		Thread.sleep(5000);
		server.stop();
		try {
			assertThat(lost.await(15, TimeUnit.SECONDS)).as("lease reported lost while disconnected").isTrue();
			assertThat(held.isValid()).isFalse();
		}
		finally {
			server.restart();
		}
		Lease next = b.acquire(LockRequest.builder("doubt").waitTime(Duration.ofSeconds(20)).build());
		assertThat(holderClient.getZookeeperClient().getZooKeeper().getSessionId())
			.as("the session survived: the node went because the holder deleted it")
			.isEqualTo(session);
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		held.release();
		next.release();
		assertThat(lockNodes()).isEmpty();
	}

	@Test
	void holdAtLeastOutlivesADoubtThatTheSessionSurvives() throws Exception {
		LockTemplate a = process();
		LockTemplate b = process();
		CuratorFramework holderClient = this.clients.get(0);
		long session = holderClient.getZookeeperClient().getZooKeeper().getSessionId();
		Lease held = a
			.acquire(LockRequest.builder("kept").holdAtLeast(Duration.ofMinutes(1)).waitTime(Duration.ZERO).build());
		// a lease still held in the same process: its loss shows when the doubt passed
		Lease witness = a.acquire(tryOnce("witness", LockType.MUTEX));
		CountDownLatch doubtPassed = new CountDownLatch(1);
		witness.onLost(doubtPassed::countDown);
		// released at once: the node stays for the rest of the hold
		held.release();
		assertThat(lockNodes()).as("the kept node and the witness").hasSize(2);
		// the doubt ends a session timeout (10 s) after the last answered request, but no
		// earlier than a third of it after the stop: idle until both come about 3 s after
		// the stop, so that the restart comes well before Curator gives the session up (a
		// session timeout after the stop) even on a slow machine
		Thread.sleep(6500);
		server.stop();
		try {
			assertThat(doubtPassed.await(15, TimeUnit.SECONDS)).as("the witness reported lost while disconnected")
				.isTrue();
		}
		finally {
			server.restart();
		}
		assertThat(b.tryAcquire(LockRequest.builder("kept").waitTime(Duration.ofSeconds(5)).build()))
			.as("another process inside the hold after the doubt passed")
			.isEmpty();
		assertThat(holderClient.getZookeeperClient().getZooKeeper().getSessionId())
			.as("the session survived the suspension")
			.isEqualTo(session);
		// the witness's node goes in the background once reconnected; the kept one stays
		awaitNodes(1);
		assertThat(lockNodes()).as("the kept node is still there")
			.singleElement(InstanceOfAssertFactories.STRING)
			.startsWith(new LockNodePaths(this.basePath).lockPath("kept", LockType.MUTEX) + "/");
	}

	/**
	 * A fixed lease nobody released ends by the core's clock, which releases its node in
	 * the background. A try-once caller of the same process right after the lease's end
	 * finds the lock free however late that background release runs: it sends the release
	 * itself, or waits for it, instead of finding the node still there (the contract
	 * checks this 50 ms after the end, on a busy machine too).
	 */
	@Test
	void aTryOnceRightAfterAForgottenLeaseEndedIsNotRefusedByItsLateBackgroundRelease() throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString());
		this.clients.add(client);
		ZooKeeperLockProvider zookeeper = new ZooKeeperLockProvider(client, this.basePath);
		// the background's release of a lease that ended comes 500 ms late, as on a busy
		// machine
		ForwardingLockProvider lateBackground = new ForwardingLockProvider(zookeeper) {

			@Override
			public void release(HeldLock lock) throws Exception {
				if (Thread.currentThread().getName().startsWith("distlock-cleanup-")) {
					Thread.sleep(500);
				}
				super.release(lock);
			}

		};
		LockTemplate process = new LockTemplate(List.of(lateBackground), lateBackground.name(),
				LockSettings.defaults().withKeyPrefix(""), List.of());
		this.templates.add(process);
		LockRequest request = LockRequest.builder("forgotten")
			.lease(Duration.ofMillis(300))
			.waitTime(Duration.ZERO)
			.build();
		Lease forgotten = process.tryAcquire(request).orElseThrow();
		CountDownLatch lost = new CountDownLatch(1);
		forgotten.onLost(lost::countDown);
		assertThat(lost.await(5, TimeUnit.SECONDS)).as("the forgotten lease ended by the clock").isTrue();

		Optional<Lease> next = process.tryAcquire(request);

		assertThat(next).as("a try-once caller right after the forgotten lease's end").isPresent();
		assertThat(next.get().fencingToken()).isGreaterThan(forgotten.fencingToken());
		next.get().release();
		awaitNodes(0);
	}

	@Test
	void lockNodeReapedBetweenItsCreationAndTheQueuedNodeIsCreatedAgain() throws Exception {
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString());
		this.clients.add(client);
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
		LockTemplate a = template(provider);
		String lockPath = provider.paths().lockPath("reaped-race", LockType.MUTEX);
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicInteger reaped = new AtomicInteger();
		// what the container reaper does to an empty lock, many times a second instead of
		// once a minute: delete the lock node, then the key node above it, each only
		// while empty
		String keyPath = lockPath.substring(0, lockPath.lastIndexOf('/'));
		Future<?> reaper = this.executor.submit(() -> {
			while (running.get()) {
				for (String path : List.of(lockPath, keyPath)) {
					try {
						admin.delete().forPath(path);
						reaped.incrementAndGet();
					}
					catch (KeeperException.NoNodeException | KeeperException.NotEmptyException ex) {
						// nothing to reap now
					}
				}
				Thread.sleep(1);
			}
			return null;
		});
		List<String> failures = new ArrayList<>();
		try {
			for (int i = 0; i < 300; i++) {
				try {
					a.acquire(LockRequest.builder("reaped-race").waitTime(Duration.ofSeconds(5)).build()).release();
				}
				catch (LockAcquisitionException ex) {
					failures.add(i + ": " + ex.getCause());
				}
			}
		}
		finally {
			running.set(false);
			reaper.get(10, TimeUnit.SECONDS);
		}
		assertThat(failures).as("acquisitions that failed while the lock node was reaped").isEmpty();
		assertThat(reaped.get()).as("lock nodes reaped between acquisitions").isPositive();
		assertThat(lockNodes()).isEmpty();
	}

}
