package dev.distlock.integration;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.core.LockTemplate;
import dev.distlock.etcd.EtcdCluster;
import dev.distlock.jdbc.JdbcLockSchema;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.TestServers;
import org.apache.curator.test.TestingServer;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Application contexts as Spring Integration's lock registry tests use registries: each
 * context is one "process" of an application that adds the starter and names a backend in
 * its properties ({@code local}, {@code redis}, {@code redisson}, {@code postgresql},
 * {@code mariadb}, {@code h2}, {@code zookeeper}, {@code etcd}), with a client of its own
 * and the auto-configured {@link LockRegistry}. Contexts are started on first use, one
 * per name (and so per setting: a time to live, a key prefix), and closed with the
 * fixture, which also stops the servers it started and drops its lock table.
 */
final class LockRegistryContexts implements AutoCloseable {

	static final List<String> BACKENDS = List.of("local", "redis", "redisson", "postgresql", "mariadb", "h2",
			"zookeeper", "etcd");

	private final String backend;

	private final String keyPrefix = "si-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final String lockTable = "dl_si_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private final Map<String, ConfigurableApplicationContext> contexts = new ConcurrentHashMap<>();

	private final List<AutoCloseable> clients = new ArrayList<>();

	private @Nullable TestingServer zookeeper;

	private @Nullable DriverManagerDataSource database;

	private @Nullable String jdbcUrl;

	private @Nullable String jdbcUser;

	private @Nullable String jdbcPassword;

	private @Nullable LocalLockProvider localStore;

	LockRegistryContexts(String backend) throws Exception {
		this.backend = backend;
		switch (backend) {
			case "zookeeper" -> this.zookeeper = new TestingServer(true);
			case "postgresql" -> jdbc(TestServers.postgres());
			case "mariadb" -> jdbc(TestServers.mariadb());
			case "h2" ->
				jdbc(new TestServers.JdbcServer("jdbc:h2:mem:" + this.lockTable + ";DB_CLOSE_DELAY=-1", "sa", ""));
			default -> {
			}
		}
	}

	private void jdbc(TestServers.JdbcServer server) throws Exception {
		this.jdbcUrl = server.url();
		this.jdbcUser = server.username();
		this.jdbcPassword = server.password();
		this.database = new DriverManagerDataSource(server.url(), server.username(), server.password());
		JdbcLockSchema.create(this.database, this.lockTable, null);
	}

	String backend() {
		return this.backend;
	}

	/**
	 * The registry of the named process, started with the given properties on first use.
	 * @param name the process's name; one context per name
	 * @param properties more properties ({@code name=value}) of that process
	 * @return its auto-configured registry
	 */
	DistlockLockRegistry registry(String name, String... properties) {
		return (DistlockLockRegistry) context(name, properties).getBean(LockRegistry.class);
	}

	/**
	 * The lock template of the named process.
	 * @param name the process's name
	 * @return its template
	 */
	LockTemplate template(String name) {
		return context(name).getBean(LockTemplate.class);
	}

	private ConfigurableApplicationContext context(String name, String... properties) {
		return this.contexts.computeIfAbsent(name, (key) -> start(properties));
	}

	private ConfigurableApplicationContext start(String... properties) {
		List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off",
				"--distlock.key-prefix=" + this.keyPrefix, "--distlock.provider=" + provider()));
		switch (this.backend) {
			case "redis", "redisson" -> {
				URI redis = TestServers.redisUri();
				args.add("--spring.data.redis.host=" + redis.getHost());
				args.add("--spring.data.redis.port=" + redis.getPort());
			}
			case "postgresql", "mariadb", "h2" -> {
				args.add("--spring.datasource.url=" + this.jdbcUrl);
				args.add("--spring.datasource.username=" + this.jdbcUser);
				args.add("--spring.datasource.password=" + this.jdbcPassword);
				args.add("--spring.datasource.hikari.maximum-pool-size=8");
				args.add("--distlock.jdbc.table-name=" + this.lockTable);
				args.add("--distlock.jdbc.initialize-schema=never");
			}
			case "zookeeper" -> args.add("--distlock.zookeeper.connect-string=" + this.zookeeper.getConnectString());
			case "etcd" -> args.add("--distlock.etcd.endpoints=" + EtcdCluster.shared().endpoints());
			default -> {
			}
		}
		for (String property : properties) {
			args.add("--" + property);
		}
		SpringApplicationBuilder builder = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE);
		if (this.backend.equals("redisson")) {
			RedissonClient client = redisson();
			builder.initializers((context) -> context.getBeanFactory().registerSingleton("redisson", client));
		}
		if (this.backend.equals("local")) {
			// one JVM is one store: the processes of a test share it, as threads do
			synchronized (this) {
				LocalLockProvider store = this.localStore;
				if (store != null) {
					LocalLockProvider shared = new LocalLockProvider(store);
					this.clients.add(shared::close);
					builder.initializers(
							(context) -> context.getBeanFactory().registerSingleton("localLockProvider", shared));
				}
			}
		}
		ConfigurableApplicationContext context = builder.run(args.toArray(String[]::new));
		if (this.backend.equals("local")) {
			synchronized (this) {
				if (this.localStore == null) {
					this.localStore = context.getBean(LocalLockProvider.class);
				}
			}
		}
		return context;
	}

	private String provider() {
		return switch (this.backend) {
			case "postgresql", "mariadb", "h2" -> "jdbc";
			default -> this.backend;
		};
	}

	private RedissonClient redisson() {
		URI address = TestServers.redisUri();
		Config config = new Config();
		config.setNettyThreads(4);
		config.setThreads(2);
		config.useSingleServer()
			.setAddress("redis://" + address.getHost() + ":" + address.getPort())
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(8)
			.setSubscriptionConnectionMinimumIdleSize(1)
			.setSubscriptionConnectionPoolSize(4)
			.setTimeout(2000);
		RedissonClient client = Redisson.create(config);
		synchronized (this) {
			this.clients.add(client::shutdown);
		}
		return client;
	}

	@Override
	public void close() throws Exception {
		// the first local context owns the store the others share: close it last
		List<ConfigurableApplicationContext> open = new ArrayList<>(this.contexts.values());
		if (this.localStore != null) {
			open.sort((a, b) -> Boolean.compare(a.getBean(LocalLockProvider.class) == this.localStore,
					b.getBean(LocalLockProvider.class) == this.localStore));
		}
		open.forEach(ConfigurableApplicationContext::close);
		for (AutoCloseable client : this.clients) {
			client.close();
		}
		if (this.zookeeper != null) {
			this.zookeeper.close();
		}
		if (this.database != null) {
			JdbcTemplate jdbc = new JdbcTemplate(this.database);
			jdbc.execute("DROP TABLE IF EXISTS " + JdbcLockSchema.latchTableName(this.lockTable));
			jdbc.execute("DROP TABLE IF EXISTS " + this.lockTable);
			jdbc.execute("DROP SEQUENCE IF EXISTS " + JdbcLockSchema.sequenceName(this.lockTable));
			if (this.backend.equals("h2")) {
				jdbc.execute("SHUTDOWN");
			}
		}
	}

	@Override
	public String toString() {
		return this.backend;
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
