package dev.distlock.zookeeper.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.ServiceConnectionSources;
import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ZooKeeperConnectionDetails}: the properties-based default, a details bean (what
 * a service connection registers) driving distlock's own client against a real in-process
 * server, and the Testcontainers and Docker Compose factories' mapping as Boot invokes
 * them (without Docker: see {@link ServiceConnectionSources}).
 */
class ZooKeeperConnectionDetailsTests {

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
	void runWithConnectStringShouldDefineDetailsFromTheProperties() {
		this.contextRunner.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString())
			.run((context) -> {
				assertThat(context).hasSingleBean(ZooKeeperConnectionDetails.class)
					.hasSingleBean(PropertiesZooKeeperConnectionDetails.class);
				assertThat(context.getBean(ZooKeeperConnectionDetails.class).getConnectString())
					.isEqualTo(server.getConnectString());
			});
	}

	@Test
	void runWithDetailsBeanAndNoConnectStringShouldConnectWhereTheDetailsSay() {
		this.contextRunner.withBean(ZooKeeperConnectionDetails.class, () -> server::getConnectString).run((context) -> {
			assertThat(context).hasSingleBean(ZooKeeperLockProvider.class)
				.hasSingleBean(ZooKeeperConnectionDetails.class)
				.doesNotHaveBean(PropertiesZooKeeperConnectionDetails.class);
			assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().getCurrentConnectionString())
				.isEqualTo(server.getConnectString());
			try (Lease lease = context.getBean(LockTemplate.class)
				.acquire(LockRequest.builder("details").waitTime(Duration.ofSeconds(10)).build())) {
				assertThat(lease.isValid()).isTrue();
			}
		});
	}

	@Test
	void runWithDetailsBeanShouldPreferItToTheConnectString() {
		this.contextRunner.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:1")
			.withBean(ZooKeeperConnectionDetails.class, () -> server::getConnectString)
			.run((context) -> assertThat(
					context.getBean(CuratorFramework.class).getZookeeperClient().getCurrentConnectionString())
				.isEqualTo(server.getConnectString()));
	}

	@Test
	void runWithApplicationClientShouldNotUseTheDetails() throws Exception {
		try (CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString())) {
			this.contextRunner.withBean(ZooKeeperConnectionDetails.class, () -> () -> "127.0.0.1:1")
				.withBean(CuratorFramework.class, () -> client)
				.run((context) -> {
					assertThat(context).hasSingleBean(ZooKeeperLockProvider.class)
						.hasSingleBean(CuratorFramework.class);
					assertThat(context.getBean(CuratorFramework.class)).isSameAs(client);
				});
		}
	}

	@Test
	void dockerComposeServiceOfAZooKeeperImageGivesItsPublishedClientPort() throws Exception {
		Map<Class<?>, ConnectionDetails> details = ServiceConnectionSources.fromDockerCompose("zookeeper:3.9",
				"10.0.0.7", Map.of(2181, 32781, 8080, 32782));
		assertThat(details).containsKey(ZooKeeperConnectionDetails.class);
		assertThat(((ZooKeeperConnectionDetails) details.get(ZooKeeperConnectionDetails.class)).getConnectString())
			.isEqualTo("10.0.0.7:32781");
		assertThat(
				ServiceConnectionSources.fromDockerCompose("bitnami/zookeeper:3.9", "localhost", Map.of(2181, 40000)))
			.containsKey(ZooKeeperConnectionDetails.class);
	}

	@Test
	void dockerComposeServiceOfAnotherImageGivesNoZooKeeperDetails() throws Exception {
		assertThat(ServiceConnectionSources.fromDockerCompose("nginx:1", "localhost", Map.of(80, 32790)))
			.doesNotContainKey(ZooKeeperConnectionDetails.class);
	}

	@Test
	void serviceConnectionContainerOfAZooKeeperImageGivesItsMappedClientPort() throws Exception {
		Map<Class<?>, ConnectionDetails> details = ServiceConnectionSources.fromContainer("zookeeper:3.9",
				"192.168.5.2", Map.of(2181, 55001));
		assertThat(((ZooKeeperConnectionDetails) details.get(ZooKeeperConnectionDetails.class)).getConnectString())
			.isEqualTo("192.168.5.2:55001");
		assertThat(ServiceConnectionSources.fromContainer("nginx:1", "localhost", Map.of(80, 55002)))
			.doesNotContainKey(ZooKeeperConnectionDetails.class);
	}

}
