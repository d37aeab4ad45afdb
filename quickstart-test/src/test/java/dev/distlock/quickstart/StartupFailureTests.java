package dev.distlock.quickstart;

import java.util.UUID;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockTemplate;
import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two startup failures the README's quick start explains, with the messages it quotes
 * and the fixes it gives: an application with a DataSource and Redis, and an application
 * on PostgreSQL alone. Each runs the application's whole auto-configuration, as
 * {@code @SpringBootApplication} does.
 */
class StartupFailureTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(ShippingApplication.class);

	@Test
	void dataSourceAndRedisWithoutProviderFailsSayingToSetTheProvider() {
		this.contextRunner.withPropertyValues(h2()).withPropertyValues(redis()).run((context) -> {
			assertThat(context).hasFailed();
			Throwable cause = NestedExceptionUtils.getRootCause(context.getStartupFailure());
			assertThat(cause).isInstanceOf(LockConfigurationException.class)
				.hasMessage("Several lock providers are available [jdbc, redis]; "
						+ "set distlock.provider to the one locks should use by default");
		});
	}

	@Test
	void dataSourceAndRedisWithProviderStartsAndLocksOnIt() {
		this.contextRunner.withPropertyValues(h2())
			.withPropertyValues(redis(), "distlock.provider=redis")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockTemplate.class).defaultProvider().name()).isEqualTo("redis");
				assertThat(context.getBean(LockTemplate.class).providers()).as("jdbc is not registered unless enabled")
					.containsOnlyKeys("redis");
				assertThat(context.getBean(Shipping.class).ship("quickstart-" + UUID.randomUUID())).isPositive();
			});
	}

	@Test
	void postgresqlAloneWithoutSchemaFailsSayingHowToCreateTheTable() {
		String table = uniqueTable();
		postgresOnly().withPropertyValues(postgres())
			.withPropertyValues("distlock.jdbc.table-name=" + table)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(lockConfigurationFailure(context.getStartupFailure()))
					.hasMessageStartingWith("distlock's lock table " + table + " or its sequence " + table
							+ "_fence is missing or has other columns (")
					.hasMessageEndingWith("). Create or upgrade them with dev/distlock/jdbc/schema-postgresql.sql"
							+ " from the distlock jar (docs/jdbc.md), or let Spring Boot do it with "
							+ "distlock.jdbc.initialize-schema=always");
			});
	}

	@Test
	void postgresqlAloneWithInitializeSchemaAlwaysStartsAndLocks() {
		String table = uniqueTable();
		try {
			postgresOnly().withPropertyValues(postgres())
				.withPropertyValues("distlock.jdbc.table-name=" + table, "distlock.jdbc.initialize-schema=always")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(LockTemplate.class).defaultProvider().name()).isEqualTo("jdbc");
					assertThat(context.getBean(Shipping.class).ship("quickstart-" + UUID.randomUUID())).isPositive();
				});
		}
		finally {
			dropTables(table);
		}
	}

	/** PostgreSQL alone: Redis's client library is not on the application's classpath. */
	private ApplicationContextRunner postgresOnly() {
		return this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis",
				"io.lettuce", "redis.clients", "org.redisson", "org.apache.curator", "io.etcd"));
	}

	private static LockConfigurationException lockConfigurationFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LockConfigurationException lce) {
				return lce;
			}
		}
		throw new AssertionError("startup failed without a LockConfigurationException", failure);
	}

	private static String uniqueTable() {
		return "quickstart_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
	}

	private static void dropTables(String table) {
		JdbcServer server = TestServers.postgres();
		SingleConnectionDataSource dataSource = new SingleConnectionDataSource(server.url(), server.username(),
				server.password(), true);
		try {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("DROP TABLE IF EXISTS " + table);
			jdbc.execute("DROP TABLE IF EXISTS " + table + "_latch");
			jdbc.execute("DROP SEQUENCE IF EXISTS " + table + "_fence");
		}
		finally {
			dataSource.destroy();
		}
	}

	private static String[] h2() {
		return new String[] { "spring.datasource.url=jdbc:h2:mem:quickstart-" + UUID.randomUUID(),
				"spring.datasource.username=sa" };
	}

	private static String[] postgres() {
		JdbcServer server = TestServers.postgres();
		return new String[] { "spring.datasource.url=" + server.url(),
				"spring.datasource.username=" + server.username(), "spring.datasource.password=" + server.password() };
	}

	private static String redis() {
		return "spring.data.redis.url=" + TestServers.redisUri();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ShippingApplication {

		@Bean
		Shipping shipping() {
			return new Shipping();
		}

	}

	/** Public: a FilteredClassLoader defines the proxy in another class loader. */
	public static class Shipping {

		@DistributedLock(name = "order", key = "#id", lease = "30s", waitTime = "5s")
		public long ship(String id) {
			return LockContext.currentLease().fencingToken();
		}

	}

}
