package dev.distlock.leader;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.Lease;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.etcd.EtcdLockProvider;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redisson.RedissonLockProvider;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Providers for the leader election tests, built the same way in this JVM and in child
 * JVMs from a backend name and a connection string: {@code redis} (a Redis URI),
 * {@code redisson} (a Redis URI), {@code jdbc} (a PostgreSQL URL, user and lock table
 * joined by {@code |}), {@code etcd} (client URLs joined by commas) and {@code zookeeper}
 * (a connect string; the session timeout equals the leader lease, so a killed leader's
 * session, and its lock node, end within the lease).
 */
final class LeaderTestBackends {

	private LeaderTestBackends() {
	}

	/** A provider and the client it runs on. */
	record Backend(LockProvider<?> provider, AutoCloseable client) implements AutoCloseable {

		@Override
		public void close() throws Exception {
			try {
				this.provider.close();
			}
			finally {
				this.client.close();
			}
		}

	}

	static Backend backend(String backend, String connect, Duration lease) throws Exception {
		return switch (backend) {
			case "redis" -> redis(connect);
			case "redisson" -> redisson(connect);
			case "jdbc" -> jdbc(connect);
			case "zookeeper" -> zookeeper(connect, lease);
			case "etcd" -> etcd(connect);
			default -> throw new IllegalArgumentException("Unknown backend " + backend);
		};
	}

	static LockTemplate template(LockProvider<?> provider, LockListener... listeners) {
		return new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults(), List.of(listeners));
	}

	static long micros(Instant instant) {
		return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
	}

	/**
	 * Prints every renewal's new expiry, so a parent knows how long a frozen leader's
	 * lease was valid.
	 */
	static LockListener printingRenewals() {
		return new LockListener() {
			@Override
			public void renewed(Lease lease, String provider) {
				System.out.println("RENEWED " + micros(lease.expiresAt()));
			}
		};
	}

	private static Backend redis(String uri) {
		URI address = URI.create(uri);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(address.getHost(), address.getPort()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		return new Backend(new RedisLockProvider(factory), factory::destroy);
	}

	private static Backend redisson(String uri) {
		URI address = URI.create(uri);
		Config config = new Config();
		config.setNettyThreads(4);
		config.setThreads(2);
		config.useSingleServer()
			.setAddress("redis://" + address.getHost() + ":" + address.getPort())
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(4)
			.setSubscriptionConnectionMinimumIdleSize(1)
			.setSubscriptionConnectionPoolSize(2)
			.setTimeout(2000);
		RedissonClient client = Redisson.create(config);
		return new Backend(new RedissonLockProvider(client), client::shutdown);
	}

	private static Backend jdbc(String connect) {
		String[] parts = connect.split("\\|");
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(parts[0]);
		config.setUsername(parts[1]);
		config.setMaximumPoolSize(4);
		config.setMinimumIdle(1);
		HikariDataSource dataSource = new HikariDataSource(config);
		return new Backend(JdbcLockProvider.builder(dataSource).tableName(parts[2]).build(), dataSource::close);
	}

	private static Backend etcd(String endpoints) {
		Client client = Client.builder().endpoints(endpoints.split(",")).build();
		return new Backend(EtcdLockProvider.builder(client).build(), client::close);
	}

	private static Backend zookeeper(String connect, Duration lease) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connect)
			.sessionTimeoutMs((int) lease.toMillis())
			.connectionTimeoutMs(2000)
			.retryPolicy(new ExponentialBackoffRetry(100, 3))
			.build();
		client.start();
		if (!client.blockUntilConnected(20, java.util.concurrent.TimeUnit.SECONDS)) {
			throw new IllegalStateException("Could not connect to ZooKeeper at " + connect);
		}
		return new Backend(new ZooKeeperLockProvider(client), client::close);
	}

}
