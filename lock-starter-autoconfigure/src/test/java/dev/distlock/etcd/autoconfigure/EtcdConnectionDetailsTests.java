package dev.distlock.etcd.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.ServiceConnectionSources;
import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.etcd.EtcdCluster;
import dev.distlock.etcd.EtcdLockProvider;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EtcdConnectionDetails}: the properties-based default, a details bean (what a
 * service connection registers) driving distlock's own client against a real etcd server,
 * and the Testcontainers and Docker Compose factories' mapping as Boot invokes them
 * (without Docker: see {@link ServiceConnectionSources}).
 */
class EtcdConnectionDetailsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EtcdLockAutoConfiguration.class, DistlockAutoConfiguration.class));

	private static String endpoint() {
		return EtcdCluster.shared().endpoints();
	}

	@Test
	void runWithEndpointsShouldDefineDetailsFromTheProperties() {
		this.contextRunner
			.withPropertyValues("distlock.etcd.endpoints=" + endpoint(), "distlock.etcd.username=app",
					"distlock.etcd.password=secret")
			.run((context) -> {
				assertThat(context).hasSingleBean(PropertiesEtcdConnectionDetails.class);
				EtcdConnectionDetails details = context.getBean(EtcdConnectionDetails.class);
				assertThat(details.getEndpoints()).containsExactly(endpoint());
				assertThat(details.getUsername()).isEqualTo("app");
				assertThat(details.getPassword()).isEqualTo("secret");
			});
	}

	@Test
	void runWithDetailsBeanAndNoEndpointsShouldConnectWhereTheDetailsSay() {
		this.contextRunner.withBean(EtcdConnectionDetails.class, () -> () -> List.of(endpoint())).run((context) -> {
			assertThat(context).hasSingleBean(EtcdLockProvider.class)
				.hasSingleBean(Client.class)
				.doesNotHaveBean(PropertiesEtcdConnectionDetails.class);
			try (Lease lease = context.getBean(LockTemplate.class)
				.acquire(LockRequest.builder("details").waitTime(Duration.ofSeconds(10)).build())) {
				assertThat(lease.isValid()).isTrue();
			}
		});
	}

	@Test
	void runWithDetailsBeanShouldPreferItToTheEndpointsProperty() {
		this.contextRunner.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:1")
			.withBean(EtcdConnectionDetails.class, () -> () -> List.of(endpoint()))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(PropertiesEtcdConnectionDetails.class);
				try (Lease lease = context.getBean(LockTemplate.class)
					.acquire(LockRequest.builder("details-first").waitTime(Duration.ofSeconds(10)).build())) {
					assertThat(lease.isValid()).isTrue();
				}
			});
	}

	@Test
	void dockerComposeServiceOfAnEtcdImageGivesItsPublishedClientPort() throws Exception {
		for (String image : List.of("quay.io/coreos/etcd:v3.5.17", "gcr.io/etcd-development/etcd:v3.5.17",
				"bitnami/etcd:3.5")) {
			Map<Class<?>, ConnectionDetails> details = ServiceConnectionSources.fromDockerCompose(image, "10.0.0.8",
					Map.of(2379, 32779, 2380, 32780));
			assertThat(details).as(image).containsKey(EtcdConnectionDetails.class);
			EtcdConnectionDetails etcd = (EtcdConnectionDetails) details.get(EtcdConnectionDetails.class);
			assertThat(etcd.getEndpoints()).containsExactly("http://10.0.0.8:32779");
			assertThat(etcd.getUsername()).isNull();
		}
		assertThat(ServiceConnectionSources.fromDockerCompose("nginx:1", "localhost", Map.of(80, 32790)))
			.doesNotContainKey(EtcdConnectionDetails.class);
	}

	@Test
	void serviceConnectionContainerOfAnEtcdImageGivesItsMappedClientPort() throws Exception {
		Map<Class<?>, ConnectionDetails> details = ServiceConnectionSources.fromContainer("quay.io/coreos/etcd:v3.5.17",
				"192.168.5.3", Map.of(2379, 55003));
		assertThat(((EtcdConnectionDetails) details.get(EtcdConnectionDetails.class)).getEndpoints())
			.containsExactly("http://192.168.5.3:55003");
		assertThat(ServiceConnectionSources.fromContainer("nginx:1", "localhost", Map.of(80, 55004)))
			.doesNotContainKey(EtcdConnectionDetails.class);
	}

}
