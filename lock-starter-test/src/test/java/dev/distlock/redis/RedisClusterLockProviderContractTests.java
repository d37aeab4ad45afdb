package dev.distlock.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.test.TestServers;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole provider contract on a real Redis Cluster of three masters and three replicas
 * that this test starts from {@code redis-server} processes: every script touches several
 * keys of one lock, so any key outside the lock's hash tag would fail with CROSSSLOT.
 * Release notifications travel between nodes over the cluster bus.
 */
@Tag("fault")
class RedisClusterLockProviderContractTests extends RedisLockProviderContractTests {

	private static final List<RedisServerProcess> nodes = new ArrayList<>();

	private static Path dir;

	private static LettuceConnectionFactory cluster;

	@BeforeAll
	static void startCluster() throws Exception {
		dir = Files.createTempDirectory("distlock-redis-cluster");
		List<String> addresses = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			int port = TestServers.freePort();
			int busPort = TestServers.freePort();
			RedisServerProcess node = RedisServerProcess.start(port, dir, "--cluster-enabled", "yes",
					"--cluster-config-file", dir.resolve("nodes-" + port + ".conf").toString(), "--cluster-port",
					Integer.toString(busPort), "--cluster-node-timeout", "5000");
			nodes.add(node);
			addresses.add(node.address());
		}
		List<String> create = new ArrayList<>(List.of(RedisServerProcess.redisCli().toString(), "--cluster", "create"));
		create.addAll(addresses);
		create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
		String output = RedisServerProcess.run(create, Duration.ofSeconds(60));
		assertThat(output).as("redis-cli --cluster create").contains("All 16384 slots covered");
		for (RedisServerProcess node : nodes) {
			node.awaitReply(Duration.ofSeconds(30), "cluster_state:ok", "CLUSTER", "INFO");
		}
		cluster = RedisTestConnections.cluster(addresses, Duration.ofSeconds(10));
		warmUp();
	}

	/**
	 * Connects to every master and loads every script there, so that the contract's short
	 * leases do not also have to cover the client's first contact with the cluster
	 * (seconds on a loaded machine).
	 */
	private static void warmUp() throws Exception {
		RedisLockProvider provider = new RedisLockProvider(cluster);
		try {
			for (int i = 0; i < 12; i++) {
				for (LockType type : LockType.values()) {
					LockAttempt attempt = new LockAttempt("warm-up:" + i + ":" + UUID.randomUUID(), type, 1,
							Duration.ofSeconds(10), UUID.randomUUID().toString());
					var held = provider.tryAcquire(attempt).lock();
					provider.renew(held, Duration.ofSeconds(10));
					provider.release(held);
				}
			}
		}
		finally {
			provider.close();
		}
	}

	@AfterAll
	static void stopCluster() throws InterruptedException, IOException {
		if (cluster != null) {
			cluster.destroy();
		}
		for (RedisServerProcess node : nodes) {
			node.kill();
		}
		nodes.clear();
		if (dir != null) {
			FileSystemUtils.deleteRecursively(dir);
		}
	}

	@Override
	protected RedisConnectionFactory connectionFactory() {
		return cluster;
	}

	@Test
	void locksLiveOnEveryMasterAndKeysWithBracesStayInOneSlot() {
		LockTemplate process = newProcess();
		List<String> keys = List.of("orders:1", "orders:2", "orders:3", "}", "a}b{c}", "{tagged}", "%7D");
		List<Integer> slots = keys.stream()
			.map((key) -> SlotHash.getSlot(RedisLockKeys.of(this.prefix + key, LockType.MUTEX).fence()))
			.distinct()
			.toList();
		assertThat(slots).as("the keys spread over several slots").hasSizeGreaterThan(3);
		for (String key : keys) {
			for (LockType type : LockType.values()) {
				LockRequest.Builder request = LockRequest.builder(key).type(type).waitTime(Duration.ZERO);
				if (type == LockType.SEMAPHORE) {
					request.permits(2);
				}
				try (Lease lease = process.acquire(request.build())) {
					assertThat(lease.isValid()).isTrue();
					lease.extend(Duration.ofSeconds(5));
				}
			}
		}
	}

	@Test
	void releaseNoticesTravelOnShardedPubSubToTheKeysShardOnly() throws Exception {
		RedisLockProvider provider = new RedisLockProvider(cluster);
		try {
			LockAttempt holder = new LockAttempt(this.prefix + "sharded", LockType.MUTEX, 1, Duration.ofSeconds(30),
					UUID.randomUUID().toString());
			var held = provider.tryAcquire(holder).lock();
			assertThat(provider.usesShardedPubSub()).as("sharded pub/sub on a Redis 7 cluster").isTrue();
			LockAttempt waiter = new LockAttempt(holder.key(), LockType.MUTEX, 1, Duration.ofSeconds(30),
					UUID.randomUUID().toString());
			CountDownLatch woken = new CountDownLatch(1);
			try (ReleaseSubscription subscription = provider.subscribe(waiter, Duration.ofSeconds(10),
					woken::countDown)) {
				assertThat(subscription.isActive()).isTrue();
				String channel = RedisLockKeys.of(holder.key(), LockType.MUTEX).channel();
				List<Long> perNode = new ArrayList<>();
				for (RedisServerProcess node : nodes) {
					String reply = node.cli("PUBSUB", "SHARDNUMSUB", channel);
					perNode.add(Long.parseLong(reply.lines().reduce((first, second) -> second).orElse("0").trim()));
				}
				assertThat(perNode.stream().mapToLong(Long::longValue).sum())
					.as("sharded subscriptions of the channel, all nodes")
					.isEqualTo(1);
				provider.release(held);
				assertThat(woken.await(5, TimeUnit.SECONDS)).as("waiter woken by SPUBLISH").isTrue();
			}
		}
		finally {
			provider.close();
		}
	}

}
