package dev.distlock.observability;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redisson.RedissonLockProvider;
import dev.distlock.redisson.RedissonQuorumLockProvider;
import dev.distlock.test.TestServers;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reading the {@code locks} endpoint and the health indicators writes no lock on any
 * backend: each backend's check is a ping-class request (PING, EXISTS, a ZooKeeper read),
 * never an acquire and release of a probe lock, which would leave fencing counters in
 * Redis and container nodes in ZooKeeper and cost writes on every scrape.
 */
class LocksEndpointReadTests {

	private final String prefix = "endpoint-read-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void readingOnRedisWritesNoKey() {
		URI uri = TestServers.redisUri();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		RedisLockProvider provider = new RedisLockProvider(factory);
		this.resources.add(provider::close);
		LockTemplate template = template(provider);
		readEndpointAndHealth(template, provider);
		assertThat(new StringRedisTemplate(factory).keys("*" + this.prefix + "*"))
			.as("Redis keys written by reading the endpoint and the health indicator")
			.isEmpty();
	}

	@Test
	void readingOnRedissonWritesNoKey() {
		RedissonClient client = redissonClient();
		RedissonLockProvider provider = new RedissonLockProvider(client);
		LockTemplate template = template(provider);
		readEndpointAndHealth(template, provider);
		assertThat(client.getKeys().getKeysByPattern("*" + this.prefix + "*"))
			.as("Redis keys written by reading the endpoint and the health indicator")
			.isEmpty();
	}

	@Test
	void readingOnRedissonQuorumWritesNoKey() {
		List<RedissonClient> nodes = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			nodes.add(redissonClient());
		}
		RedissonQuorumLockProvider provider = new RedissonQuorumLockProvider(nodes, Duration.ofMillis(500));
		LockTemplate template = template(provider);
		readEndpointAndHealth(template, provider);
		assertThat(nodes.get(0).getKeys().getKeysByPattern("*" + this.prefix + "*"))
			.as("Redis keys written by reading the endpoint and the health indicator")
			.isEmpty();
	}

	private RedissonClient redissonClient() {
		URI uri = TestServers.redisUri();
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + uri.getHost() + ":" + uri.getPort());
		RedissonClient client = Redisson.create(config);
		this.resources.add(() -> client.shutdown(0, 2, TimeUnit.SECONDS));
		return client;
	}

	@Test
	void readingOnZooKeeperWritesNothing() throws Exception {
		TestingServer server = ZooKeeperTestSupport.server();
		this.resources.add(server);
		CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString());
		this.resources.add(client);
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, "/endpoint-read");
		this.resources.add(provider::close);
		LockTemplate template = template(provider);
		// every ZooKeeper write takes the next zxid: two markers one zxid apart prove
		// nothing was written between
		long before = marker(client, "/before");
		readEndpointAndHealth(template, provider);
		long after = marker(client, "/after");
		assertThat(after - before)
			.as("ZooKeeper writes made by reading the endpoint and the health indicator, " + "plus the second marker")
			.isEqualTo(1);
	}

	private static long marker(CuratorFramework client, String path) throws Exception {
		Stat stat = new Stat();
		client.create().storingStatIn(stat).forPath(path);
		return stat.getCzxid();
	}

	private void readEndpointAndHealth(LockTemplate template, LockProvider<?> provider) {
		LocksEndpoint endpoint = new LocksEndpoint(template);
		for (int i = 0; i < 3; i++) {
			assertThat(endpoint.locks().providers().get(provider.name()).status()).isEqualTo("UP");
		}
		assertThat(new LockProviderHealthIndicator(template, provider).health().getStatus()).isEqualTo(Status.UP);
	}

	private LockTemplate template(LockProvider<?> provider) {
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix), List.of());
		this.resources.add(template::close);
		return template;
	}

}
