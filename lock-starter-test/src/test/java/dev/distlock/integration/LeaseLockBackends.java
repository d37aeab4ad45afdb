package dev.distlock.integration;

import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.etcd.EtcdCluster;
import dev.distlock.etcd.EtcdLockProvider;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSchema;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redisson.RedissonLockProvider;
import dev.distlock.test.TestServers;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The backends of the {@link LeaseLock} tests, by name: {@code local}, {@code redis},
 * {@code redisson}, {@code postgres}, {@code mariadb}, {@code h2}, {@code zookeeper} (an
 * in-process server) and {@code etcd} (the test JVM's shared member). Each
 * {@link #process} is another "process": a template over a provider with a client of its
 * own on the shared server (for {@code local}, a provider sharing one in-JVM lock state).
 * JDBC lock tables get random names and are dropped on {@link #close()}.
 */
final class LeaseLockBackends implements AutoCloseable {

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private final Map<String, JdbcTable> tables = new HashMap<>();

	private final LocalLockProvider localState = new LocalLockProvider();

	private final String keyPrefix = "lease-lock-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private TestingServer zookeeper;

	/**
	 * A new process on the backend with the default settings.
	 * @param backend the backend's name
	 * @return its template
	 */
	LockTemplate process(String backend) throws Exception {
		return process(backend, LockSettings.defaults());
	}

	/**
	 * A new process on the backend.
	 * @param backend the backend's name
	 * @param settings the template's settings (their key prefix is replaced by the
	 * fixture's)
	 * @param listeners listeners of the template
	 * @return its template, closed with the fixture
	 */
	synchronized LockTemplate process(String backend, LockSettings settings, LockListener... listeners)
			throws Exception {
		LockProvider<?> provider = provider(backend);
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				settings.withKeyPrefix(this.keyPrefix), List.of(listeners));
		this.closeables.add(template);
		return template;
	}

	/**
	 * A new application context on the backend: the starter's auto-configuration over a
	 * provider with a client of its own, as one application of several would run.
	 * @param backend the backend's name
	 * @return the running context, closed with the fixture
	 */
	synchronized ConfigurableApplicationContext application(String backend) throws Exception {
		LockProvider<?> provider = provider(backend);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(ApplicationConfiguration.class)
			.web(WebApplicationType.NONE)
			.initializers((ctx) -> ctx.getBeanFactory().registerSingleton("lockProvider", provider))
			.run("--distlock.key-prefix=" + this.keyPrefix, "--spring.main.banner-mode=off");
		this.closeables.add(context);
		return context;
	}

	/** An application that locks with the starter's auto-configured template. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(DistlockAutoConfiguration.class)
	static class ApplicationConfiguration {

	}

	private LockProvider<?> provider(String backend) throws Exception {
		return switch (backend) {
			case "local" -> closingProvider(new LocalLockProvider(this.localState));
			case "redis" -> redis();
			case "redisson" -> redisson();
			case "postgres", "mariadb", "h2" -> jdbc(backend);
			case "zookeeper" -> zookeeper();
			case "etcd" -> closingProvider(EtcdLockProvider.builder(closing(etcdClient())).build());
			default -> throw new IllegalArgumentException("Unknown backend " + backend);
		};
	}

	private LockProvider<?> closingProvider(LockProvider<?> provider) {
		this.closeables.add(provider::close);
		return provider;
	}

	private <T extends AutoCloseable> T closing(T closeable) {
		this.closeables.add(closeable);
		return closeable;
	}

	private LockProvider<?> redis() {
		URI address = TestServers.redisUri();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(address.getHost(), address.getPort()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.closeables.add(factory::destroy);
		return closingProvider(new RedisLockProvider(factory));
	}

	private LockProvider<?> redisson() {
		URI address = TestServers.redisUri();
		Config config = new Config();
		config.setNettyThreads(4);
		config.setThreads(2);
		config.useSingleServer()
			.setAddress("redis://" + address.getHost() + ":" + address.getPort())
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(8)
			.setSubscriptionConnectionMinimumIdleSize(1)
			.setSubscriptionConnectionPoolSize(2)
			.setTimeout(5000);
		RedissonClient client = Redisson.create(config);
		this.closeables.add(client::shutdown);
		return closingProvider(new RedissonLockProvider(client));
	}

	private LockProvider<?> jdbc(String dialect) throws SQLException {
		JdbcTable table = this.tables.get(dialect);
		if (table == null) {
			table = JdbcTable.create(dialect);
			this.tables.put(dialect, table);
		}
		HikariDataSource dataSource = table.pool(4);
		this.closeables.add(dataSource);
		return closingProvider(JdbcLockProvider.builder(dataSource).tableName(table.name).build());
	}

	private LockProvider<?> zookeeper() throws Exception {
		if (this.zookeeper == null) {
			this.zookeeper = new TestingServer(true);
		}
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(this.zookeeper.getConnectString())
			.sessionTimeoutMs(15_000)
			.connectionTimeoutMs(5_000)
			.retryPolicy(new ExponentialBackoffRetry(100, 3))
			.build();
		client.start();
		this.closeables.add(client);
		if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Could not connect to ZooKeeper at " + this.zookeeper.getConnectString());
		}
		return closingProvider(new ZooKeeperLockProvider(client));
	}

	private static Client etcdClient() {
		return Client.builder().endpoints(EtcdCluster.shared().endpoints().split(",")).build();
	}

	@Override
	public synchronized void close() throws Exception {
		Exception failure = null;
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			try {
				this.closeables.get(i).close();
			}
			catch (Exception ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		this.closeables.clear();
		for (JdbcTable table : this.tables.values()) {
			table.drop();
		}
		this.tables.clear();
		if (this.zookeeper != null) {
			this.zookeeper.close();
			this.zookeeper = null;
		}
		if (failure != null) {
			throw failure;
		}
	}

	/** A lock table of its own on one SQL database, with the pool that created it. */
	private static final class JdbcTable {

		private final String url;

		private final String username;

		private final String password;

		private final String name = "dl_lease_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

		private final HikariDataSource owner;

		private JdbcTable(String url, String username, String password) throws SQLException {
			this.url = url;
			this.username = username;
			this.password = password;
			this.owner = pool(1);
			JdbcLockSchema.create(this.owner, this.name, null);
		}

		static JdbcTable create(String dialect) throws SQLException {
			return switch (dialect) {
				case "postgres" -> of(TestServers.postgres());
				case "mariadb" -> of(TestServers.mariadb());
				default ->
					new JdbcTable("jdbc:h2:mem:distlock-lease-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
			};
		}

		private static JdbcTable of(TestServers.JdbcServer server) throws SQLException {
			return new JdbcTable(server.url(), server.username(), server.password());
		}

		HikariDataSource pool(int size) {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(this.url);
			config.setUsername(this.username);
			config.setPassword(this.password);
			config.setMaximumPoolSize(size);
			config.setMinimumIdle(1);
			config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
			return new HikariDataSource(config);
		}

		void drop() {
			try (Connection connection = this.owner.getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("DROP TABLE IF EXISTS " + this.name);
				statement.execute("DROP SEQUENCE IF EXISTS " + JdbcLockSchema.sequenceName(this.name));
				statement.execute("DROP TABLE IF EXISTS " + JdbcLockSchema.latchTableName(this.name));
			}
			catch (SQLException ex) {
				// an in-memory database goes with its last connection anyway
			}
			finally {
				this.owner.close();
			}
		}

	}

}
