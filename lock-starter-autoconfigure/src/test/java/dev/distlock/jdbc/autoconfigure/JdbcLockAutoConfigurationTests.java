package dev.distlock.jdbc.autoconfigure;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.Lease;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link JdbcLockAutoConfiguration}, on embedded H2 databases.
 */
class JdbcLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JdbcLockAutoConfiguration.class, DistlockAutoConfiguration.class,
				org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true");

	@Test
	void embeddedDatabaseGetsTheTableAndAWorkingProvider() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcLockProvider.class)
				.hasSingleBean(JdbcLockSchemaInitializer.class);
			JdbcLockProvider provider = context.getBean(JdbcLockProvider.class);
			assertThat(provider.platform()).isEqualTo("h2");
			assertThat(provider.tableName()).isEqualTo("distlock_lock");
			assertThat(countRows(context.getBean(DataSource.class), "distlock_lock")).isZero();
			LockTemplate template = context.getBean(LockTemplate.class);
			assertThat(template.defaultProvider()).isSameAs(provider);
			try (Lease lease = template.acquire(LockRequest.of("orders:42"))) {
				assertThat(lease.fencingToken()).isPositive();
				assertThat(template.tryAcquire(LockRequest.builder("orders:42").waitTime(Duration.ZERO).build()))
					.isPresent();
			}
		});
	}

	@Test
	void callTimeoutBoundsTheProvidersCalls() {
		AtomicBoolean slowPool = new AtomicBoolean();
		this.contextRunner.withPropertyValues("distlock.call-timeout=300ms", "distlock.jdbc.initialize-schema=always")
			.withUserConfiguration(SlowPoolConfiguration.class)
			.withBean(AtomicBoolean.class, () -> slowPool)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcLockProvider provider = context.getBean(JdbcLockProvider.class);
				slowPool.set(true);
				long start = System.nanoTime();
				assertThatExceptionOfType(CannotGetJdbcConnectionException.class).isThrownBy(() -> provider
					.checkHealth(new LockAttempt("probe", LockType.MUTEX, 1, Duration.ofSeconds(1), "o")));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("health check with a pool that hangs 3 s")
					.isBetween(Duration.ofMillis(250), Duration.ofMillis(1500));
			});
	}

	@Test
	void worksWithoutThePostgresDriver() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.postgresql")).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(LockTemplate.class).acquire(LockRequest.of("k")).release();
		});
	}

	@Test
	void customTableNameIsCreatedAndUsed() {
		this.contextRunner.withPropertyValues("distlock.jdbc.table-name=app_locks").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(JdbcLockProvider.class).tableName()).isEqualTo("app_locks");
			context.getBean(LockTemplate.class).acquire(LockRequest.of("k")).release();
			assertThat(countRows(context.getBean(DataSource.class), "app_locks")).isEqualTo(1);
		});
	}

	@Test
	void releasedRowsAreSweptAtTheConfiguredInterval() {
		this.contextRunner
			.withPropertyValues("distlock.jdbc.cleanup-interval=100ms", "distlock.jdbc.cleanup-batch-size=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LockTemplate template = context.getBean(LockTemplate.class);
				for (int i = 0; i < 5; i++) {
					template.acquire(LockRequest.of("k" + i)).release();
				}
				DataSource dataSource = context.getBean(DataSource.class);
				long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
				while (countRows(dataSource, "distlock_lock") > 0 && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				assertThat(countRows(dataSource, "distlock_lock")).as("rows left after the sweeps").isZero();
				assertThat(context.getBean(JdbcLockProvider.class).sweptRows()).isEqualTo(5);
			});
	}

	@Test
	void negativeCleanupIntervalFailsAtStartup() {
		this.contextRunner.withPropertyValues("distlock.jdbc.cleanup-interval=-1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure())).hasMessageContaining("cleanupInterval");
		});
	}

	@Test
	void initializeSchemaNeverCreatesNoTableAndStartupSaysWhatIsMissing() {
		this.contextRunner.withPropertyValues("distlock.jdbc.initialize-schema=never").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure())).hasMessageContaining("distlock_lock")
				.hasMessageContaining("schema-h2.sql")
				.hasMessageContaining("initialize-schema");
		});
	}

	@Test
	void initializeSchemaNeverStartsWhenTheTableExists() {
		this.contextRunner
			.withPropertyValues("distlock.jdbc.initialize-schema=never", "spring.sql.init.mode=always",
					"spring.sql.init.schema-locations=classpath:dev/distlock/jdbc/schema-h2.sql")
			.withConfiguration(AutoConfigurations
				.of(org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(JdbcLockProvider.class);
				context.getBean(LockTemplate.class).acquire(LockRequest.of("k")).release();
			});
	}

	@Test
	void invalidTableNameFailsAtStartup() {
		this.contextRunner.withPropertyValues("distlock.jdbc.table-name=locks; drop table x").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure()))
				.hasMessageContaining("distlock.jdbc.table-name");
		});
	}

	@Test
	void unknownPlatformFailsAtStartup() {
		this.contextRunner.withPropertyValues("distlock.jdbc.platform=oracle").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure())).hasMessageContaining("oracle")
				.hasMessageContaining("postgresql, mariadb, mysql and h2");
		});
	}

	@Test
	void unsupportedDatabaseFailsAtStartupNamingIt() {
		this.contextRunner.withUserConfiguration(OracleLookalikeConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure())).hasMessageContaining("Oracle")
				.hasMessageContaining("distlock.provider");
		});
	}

	@Test
	void distlockDataSourceIsPreferredOverThePrimaryOne() {
		this.contextRunner.withUserConfiguration(TwoDataSourcesConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(LockTemplate.class).acquire(LockRequest.of("k")).release();
			assertThat(countRows(context.getBean("lockDataSource", DataSource.class), "distlock_lock")).isEqualTo(1);
			assertThat(hasTable(context.getBean("appDataSource", DataSource.class), "distlock_lock")).isFalse();
		});
	}

	@Test
	void userProviderBeanIsKept() {
		this.contextRunner.withUserConfiguration(UserProviderConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JdbcLockProvider.class);
			assertThat(context.getBean(JdbcLockProvider.class).tableName()).isEqualTo("user_locks");
		});
	}

	@Test
	void backsOffWithoutADataSource() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JdbcLockAutoConfiguration.class, DistlockAutoConfiguration.class))
			.withPropertyValues("distlock.provider=local", "distlock.jdbc.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(JdbcLockProvider.class)
					.hasSingleBean(LocalLockProvider.class);
			});
	}

	@Test
	void backsOffWithoutSpringJdbc() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JdbcTemplate.class))
			.withPropertyValues("distlock.provider=local", "distlock.jdbc.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcLockProvider.class));
	}

	@Test
	void backsOffWhenAnotherProviderIsChosen() {
		this.contextRunner.withPropertyValues("distlock.provider=local")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(JdbcLockProvider.class)
				.doesNotHaveBean(JdbcLockSchemaInitializer.class));
	}

	@Test
	void registersBesideTheDefaultWhenEnabled() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.jdbc.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(JdbcLockProvider.class);
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaultProvider().name()).isEqualTo("local");
				template.acquire(LockRequest.builder("k").provider("jdbc").build()).release();
			});
	}

	@Test
	void userSchemaInitializerBeanIsKept() {
		this.contextRunner.withUserConfiguration(UserSchemaInitializerConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).getBean(JdbcLockSchemaInitializer.class)
				.isSameAs(context.getBean("mySchemaInitializer"));
			context.getBean(LockTemplate.class).acquire(LockRequest.of("k")).release();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserSchemaInitializerConfiguration {

		@Bean
		JdbcLockSchemaInitializer mySchemaInitializer(DataSource dataSource) {
			return new JdbcLockSchemaInitializer(dataSource, new JdbcLockProperties());
		}

	}

	@Test
	void builderCustomizersApplyInOrderAfterTheProperties() {
		this.contextRunner.withPropertyValues("distlock.jdbc.table-name=app_locks")
			.withBean("second", JdbcLockProviderBuilderCustomizer.class, () -> new OrderedJdbc(2, "app_locks"))
			.withBean("first", JdbcLockProviderBuilderCustomizer.class, () -> new OrderedJdbc(1, "no_such_table"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(JdbcLockProvider.class).tableName())
					.as("the later customizer wins over the earlier one")
					.isEqualTo("app_locks");
			});
	}

	@Test
	void nonPositiveCleanupBatchSizeFailsWithTheConstraintsMessage() {
		this.contextRunner.withPropertyValues("distlock.jdbc.cleanup-batch-size=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(org.springframework.boot.context.properties.bind.validation.BindValidationException.class)
				.hasMessageContaining("distlock.jdbc")
				.hasMessageContaining("cleanupBatchSize")
				.hasMessageContaining("must be greater than 0"));
	}

	@Test
	void blankTableNameFailsWithTheConstraintsMessage() {
		this.contextRunner.withPropertyValues("distlock.jdbc.table-name= ")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("tableName")
				.hasMessageContaining("must not be blank"));
	}

	/** Sets the table name; checks that it runs after the properties were applied. */
	record OrderedJdbc(int order,
			String tableName) implements JdbcLockProviderBuilderCustomizer, org.springframework.core.Ordered {

		@Override
		public void customize(dev.distlock.jdbc.JdbcLockProviderBuilder builder) {
			builder.tableName(this.tableName);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	private static LockConfigurationException configurationFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LockConfigurationException configuration) {
				return configuration;
			}
		}
		throw new AssertionError("Startup failed without a LockConfigurationException", failure);
	}

	private static int countRows(DataSource dataSource, String table) {
		return new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
	}

	private static boolean hasTable(DataSource dataSource, String table) {
		return new JdbcTemplate(dataSource).queryForObject(
				"SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE LOWER(TABLE_NAME) = ?", Integer.class, table) > 0;
	}

	private static HikariDataSource h2(String name) {
		return DataSourceBuilder.create()
			.type(HikariDataSource.class)
			.url("jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.username("sa")
			.build();
	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSourcesConfiguration {

		@Bean
		@Primary
		HikariDataSource appDataSource() {
			return h2("app");
		}

		@Bean
		@DistlockDataSource
		HikariDataSource lockDataSource() {
			return h2("locks");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserProviderConfiguration {

		@Bean
		JdbcLockProvider userProvider(DataSource dataSource) {
			return JdbcLockProvider.builder(dataSource).tableName("user_locks").checkTable(false).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OracleLookalikeConfiguration {

		@Bean
		DataSource dataSource() {
			// H2 underneath, presenting itself as a database the backend does not speak
			return new DelegatingDataSource(h2("oracle")) {

				@Override
				public Connection getConnection() throws java.sql.SQLException {
					Connection connection = super.getConnection();
					DatabaseMetaData metaData = connection.getMetaData();
					DatabaseMetaData oracle = (DatabaseMetaData) Proxy.newProxyInstance(getClass().getClassLoader(),
							new Class<?>[] { DatabaseMetaData.class },
							(proxy, method, args) -> switch (method.getName()) {
								case "getDatabaseProductName" -> "Oracle";
								case "getDatabaseProductVersion" -> "23ai";
								default -> method.invoke(metaData, args);
							});
					return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
							new Class<?>[] { Connection.class },
							(proxy, method, args) -> method.getName().equals("getMetaData") ? oracle
									: method.invoke(connection, args));
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlowPoolConfiguration {

		/**
		 * A PostgreSQL pool that, once told to, takes 3 s to give a connection (as
		 * HikariCP validating a silent peer); H2 connections are borrowed on the caller's
		 * thread.
		 */
		@Bean
		DataSource dataSource(AtomicBoolean slowPool) {
			TestServers.JdbcServer postgres = TestServers.postgres();
			return new DelegatingDataSource(DataSourceBuilder.create()
				.url(postgres.url())
				.username(postgres.username())
				.password(postgres.password())
				.build()) {

				@Override
				public Connection getConnection() throws java.sql.SQLException {
					if (slowPool.get()) {
						try {
							Thread.sleep(3000);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
					}
					return super.getConnection();
				}

			};
		}

	}

}
