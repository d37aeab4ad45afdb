package dev.distlock.zookeeper.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.Lease;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ZooKeeperLockAutoConfiguration}, against a real in-process ZooKeeper
 * server.
 */
class ZooKeeperLockAutoConfigurationTests {

	private static TestingServer server;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ZooKeeperLockAutoConfiguration.class, DistlockAutoConfiguration.class));

	@BeforeAll
	static void startServer() throws Exception {
		server = ZooKeeperTestSupport.server();
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@Test
	void runWithoutConnectStringOrClientShouldNotCreateProvider() {
		this.contextRunner.withPropertyValues("distlock.provider=local").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(ZooKeeperLockProvider.class);
			assertThat(context).doesNotHaveBean(CuratorFramework.class);
		});
	}

	@Test
	void runWithConnectStringShouldCreateStartAndCloseAClient() {
		AtomicReference<CuratorFramework> created = new AtomicReference<>();
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.zookeeper.base-path=/app/locks", "distlock.zookeeper.session-timeout=12s",
					"distlock.zookeeper.connection-timeout=4s")
			.run((context) -> {
				assertThat(context).hasSingleBean(ZooKeeperLockProvider.class);
				CuratorFramework client = context.getBean(CuratorFramework.class);
				created.set(client);
				assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
				assertThat(client.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(4000);
				assertThat(context.getBean(ZooKeeperLockProvider.class).paths().basePath()).isEqualTo("/app/locks");
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaultProvider().name()).isEqualTo("zookeeper");
				try (Lease lease = template
					.acquire(LockRequest.builder("auto").waitTime(Duration.ofSeconds(10)).build())) {
					assertThat(lease.fencingToken()).isPositive();
					assertThat(client.checkExists().forPath("/app/locks/lock:auto/mutex")).isNotNull();
				}
			});
		assertThat(created.get().getState()).as("client closed with the context")
			.isEqualTo(CuratorFrameworkState.STOPPED);
	}

	@Test
	void runWithCallTimeoutShouldBoundTheProvidersOwnCallsByIt() {
		// nothing listens on port 1: the client never connects, so a health check waits
		// for a connection until the
		// provider's call timeout ends (1 s by default), not the connection timeout (15 s
		// by default)
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:1", "distlock.call-timeout=200ms")
			.run((context) -> {
				ZooKeeperLockProvider provider = context.getBean(ZooKeeperLockProvider.class);
				long start = System.nanoTime();
				assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> provider
					.checkHealth(new LockAttempt("probe", LockType.MUTEX, 1, Duration.ofSeconds(1), "probe")));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("health check with call-timeout 200ms")
					.isBetween(Duration.ofMillis(150), Duration.ofMillis(700));
			});
	}

	@Test
	void runWithUserClientShouldUseItAndLeaveItToTheUser() {
		this.contextRunner.withUserConfiguration(UserClientConfiguration.class)
			.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:1")
			.run((context) -> {
				assertThat(context).hasSingleBean(CuratorFramework.class);
				assertThat(context).hasBean("userCurator");
				LockTemplate template = context.getBean(LockTemplate.class);
				template.acquire(LockRequest.builder("user").waitTime(Duration.ofSeconds(10)).build()).release();
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.checkExists().forPath(ZooKeeperLockProvider.DEFAULT_BASE_PATH)).isNotNull();
			});
	}

	@Test
	void runWithUserProviderShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserClientConfiguration.class, UserProviderConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(ZooKeeperLockProvider.class);
				assertThat(context.getBean(ZooKeeperLockProvider.class).paths().basePath()).isEqualTo("/custom");
			});
	}

	@Test
	void runWithoutCuratorOnTheClassPathShouldBackOff() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(CuratorFramework.class))
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.provider=local")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ZooKeeperLockProvider.class);
				assertThat(context.getBean(LockTemplate.class).defaultProvider()).isInstanceOf(LocalLockProvider.class);
			});
	}

	@Test
	void runWhenDisabledShouldNotCreateProvider() {
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.zookeeper.enabled=false", "distlock.provider=local")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ZooKeeperLockProvider.class);
				assertThat(context).doesNotHaveBean(CuratorFramework.class);
			});
	}

	@Test
	void runWhenAnotherProviderIsChosenShouldNotCreateProvider() {
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.provider=local")
			.run((context) -> assertThat(context).doesNotHaveBean(ZooKeeperLockProvider.class));
	}

	@Test
	void runWhenEnabledBesideTheDefaultShouldAddProvider() {
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.zookeeper.enabled=true", "distlock.provider=local")
			.run((context) -> {
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.providers()).containsKeys("local", "zookeeper");
				assertThat(template.defaultProvider().name()).isEqualTo("local");
			});
	}

	@Test
	void runWithInvalidBasePathShouldFailAtStartup() {
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.zookeeper.base-path=locks/")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.zookeeper.base-path"));
	}

	@Test
	void runWithZooKeeperChosenButNotConfiguredShouldFailWithAMessage() {
		this.contextRunner.withPropertyValues("distlock.provider=zookeeper")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.zookeeper.connect-string"));
	}

	@Test
	void runWithClientBuilderCustomizersShouldApplyThemInOrder() {
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.zookeeper.connection-timeout=4s")
			.withBean("second", ZooKeeperLockClientBuilderCustomizer.class, () -> new OrderedCurator(2, 6000))
			.withBean("first", ZooKeeperLockClientBuilderCustomizer.class, () -> new OrderedCurator(1, 5000))
			.run((context) -> assertThat(
					context.getBean(CuratorFramework.class).getZookeeperClient().getConnectionTimeoutMs())
				.as("the later customizer wins")
				.isEqualTo(6000));
	}

	@Test
	void runWithNegativeMaxRetriesShouldFailWithTheConstraintsMessage() {
		this.contextRunner
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.zookeeper.retry.max-retries=-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(org.springframework.boot.context.properties.bind.validation.BindValidationException.class)
				.hasMessageContaining("retry.maxRetries")
				.hasMessageContaining("must be greater than or equal to 0"));
	}

	/** Sets the connection timeout. */
	record OrderedCurator(int order,
			int connectionTimeoutMs) implements ZooKeeperLockClientBuilderCustomizer, org.springframework.core.Ordered {

		@Override
		public void customize(CuratorFrameworkFactory.Builder builder) {
			builder.connectionTimeoutMs(this.connectionTimeoutMs);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserClientConfiguration {

		@Bean(destroyMethod = "close")
		CuratorFramework userCurator() throws InterruptedException {
			CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(),
					new RetryOneTime(100));
			client.start();
			client.blockUntilConnected(20, TimeUnit.SECONDS);
			return client;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserProviderConfiguration {

		@Bean
		ZooKeeperLockProvider customZooKeeperLockProvider(CuratorFramework client) {
			return new ZooKeeperLockProvider(client, "/custom");
		}

	}

}
