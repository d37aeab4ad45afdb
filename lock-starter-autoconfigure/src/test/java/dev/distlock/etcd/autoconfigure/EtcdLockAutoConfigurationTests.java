package dev.distlock.etcd.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockLatchAutoConfiguration;
import dev.distlock.core.LatchTemplate;
import dev.distlock.core.Lease;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.etcd.EtcdCluster;
import dev.distlock.etcd.EtcdLatchProvider;
import dev.distlock.etcd.EtcdLockProvider;
import dev.distlock.local.LocalLockProvider;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link EtcdLockAutoConfiguration}, against a real etcd server started by the
 * tests.
 */
class EtcdLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EtcdLockAutoConfiguration.class, DistlockAutoConfiguration.class,
				DistlockLatchAutoConfiguration.class));

	private static String endpoints() {
		return EtcdCluster.shared().endpoints();
	}

	@Test
	void runWithoutEndpointsOrClientShouldNotCreateProvider() {
		this.contextRunner.withPropertyValues("distlock.provider=local").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(EtcdLockProvider.class);
			assertThat(context).doesNotHaveBean(Client.class);
		});
	}

	@Test
	void runWithEndpointsShouldCreateAClientProviderAndLatchAndCloseTheClient() {
		AtomicReference<Client> created = new AtomicReference<>();
		this.contextRunner
			.withPropertyValues("distlock.etcd.endpoints[0]=" + endpoints(), "distlock.etcd.root=/app/locks",
					"distlock.call-timeout=3s")
			.run((context) -> {
				assertThat(context).hasSingleBean(EtcdLockProvider.class).hasSingleBean(EtcdLatchProvider.class);
				Client client = context.getBean(Client.class);
				created.set(client);
				EtcdLockProvider provider = context.getBean(EtcdLockProvider.class);
				assertThat(provider.keys().root()).isEqualTo("/app/locks");
				assertThat(provider.callTimeout()).as("distlock.call-timeout").isEqualTo(Duration.ofSeconds(3));
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaultProvider().name()).isEqualTo("etcd");
				try (Lease lease = template
					.acquire(LockRequest.builder("auto/1").waitTime(Duration.ofSeconds(10)).build())) {
					assertThat(lease.fencingToken()).isPositive();
					assertThat(client.getKVClient()
						.get(bytes("/app/locks/lock/lock:auto%2F1/mutex/"), GetOption.builder().isPrefix(true).build())
						.get(5, TimeUnit.SECONDS)
						.getCount()).as("the lock's entry, its key's '/' encoded").isEqualTo(1);
				}
				LatchTemplate latches = context.getBean(LatchTemplate.class);
				assertThat(latches.trySetCount("auto-latch", 1)).isTrue();
				latches.countDown("auto-latch");
				assertThat(latches.count("auto-latch")).isZero();
			});
		assertThatExceptionOfType(Exception.class).as("client closed with the context")
			.isThrownBy(() -> created.get().getKVClient().get(bytes("x")).get(5, TimeUnit.SECONDS));
	}

	@Test
	void runWithEndpointsAsACommaSeparatedValueShouldCreateTheClient() {
		this.contextRunner.withPropertyValues("distlock.etcd.endpoints=" + endpoints() + "," + endpoints())
			.run((context) -> assertThat(context).hasSingleBean(EtcdLockProvider.class).hasSingleBean(Client.class));
	}

	@Test
	void runWithUserClientShouldUseItAndLeaveItToTheUser() {
		this.contextRunner.withUserConfiguration(UserClientConfiguration.class)
			.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:1")
			.run((context) -> {
				assertThat(context).hasSingleBean(Client.class);
				assertThat(context).hasBean("userClient");
				LockTemplate template = context.getBean(LockTemplate.class);
				template.acquire(LockRequest.builder("user").waitTime(Duration.ofSeconds(10)).build()).release();
			});
	}

	@Test
	void runWithUserProviderShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserClientConfiguration.class, UserProviderConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(EtcdLockProvider.class);
				assertThat(context.getBean(EtcdLockProvider.class).keys().root()).isEqualTo("/custom");
			});
	}

	@Test
	void runWithoutJetcdOnTheClassPathShouldBackOff() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Client.class))
			.withPropertyValues("distlock.etcd.endpoints=" + endpoints(), "distlock.provider=local")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(EtcdLockProvider.class);
				assertThat(context.getBean(LockTemplate.class).defaultProvider()).isInstanceOf(LocalLockProvider.class);
			});
	}

	@Test
	void runWhenDisabledShouldNotCreateProvider() {
		this.contextRunner
			.withPropertyValues("distlock.etcd.endpoints=" + endpoints(), "distlock.etcd.enabled=false",
					"distlock.provider=local")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(EtcdLockProvider.class);
				assertThat(context).doesNotHaveBean(Client.class);
			});
	}

	@Test
	void runWhenEnabledBesideTheDefaultShouldAddProvider() {
		this.contextRunner
			.withPropertyValues("distlock.etcd.endpoints=" + endpoints(), "distlock.etcd.enabled=true",
					"distlock.provider=local", "distlock.latch.provider=etcd")
			.run((context) -> {
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.providers()).containsKeys("local", "etcd");
				assertThat(template.defaultProvider().name()).isEqualTo("local");
				assertThat(context.getBean(LatchTemplate.class).provider()).isInstanceOf(EtcdLatchProvider.class);
			});
	}

	@Test
	void runWithLatchesDisabledShouldNotCreateTheLatchProvider() {
		this.contextRunner.withPropertyValues("distlock.etcd.endpoints=" + endpoints(), "distlock.latch.enabled=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(EtcdLockProvider.class);
				assertThat(context).doesNotHaveBean(EtcdLatchProvider.class);
			});
	}

	@Test
	void runWithInvalidRootShouldFailAtStartup() {
		this.contextRunner.withPropertyValues("distlock.etcd.endpoints=" + endpoints(), "distlock.etcd.root=locks/")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.etcd.root"));
	}

	@Test
	void runWithEtcdChosenButNotConfiguredShouldFailWithAMessage() {
		this.contextRunner.withPropertyValues("distlock.provider=etcd")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.etcd.endpoints"));
	}

	@Test
	void runWithClientBuilderCustomizersShouldApplyThemInOrder() {
		List<String> applied = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.contextRunner.withPropertyValues("distlock.etcd.endpoints=" + endpoints())
			.withBean("second", EtcdLockClientBuilderCustomizer.class, () -> new Recording(2, "second", applied))
			.withBean("first", EtcdLockClientBuilderCustomizer.class, () -> new Recording(1, "first", applied))
			.run((context) -> {
				assertThat(context).hasSingleBean(Client.class);
				assertThat(applied).containsExactly("first", "second");
			});
	}

	private static ByteSequence bytes(String value) {
		return ByteSequence.from(value, StandardCharsets.UTF_8);
	}

	/** Records that it ran, and checks that the properties were applied before it. */
	record Recording(int order, String name, List<String> applied) implements EtcdLockClientBuilderCustomizer, Ordered {

		@Override
		public void customize(ClientBuilder builder) {
			assertThat(builder.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
			this.applied.add(this.name);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserClientConfiguration {

		@Bean(destroyMethod = "close")
		Client userClient() {
			return EtcdCluster.shared().client();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserProviderConfiguration {

		@Bean
		EtcdLockProvider customProvider(Client client) {
			return EtcdLockProvider.builder(client).root("/custom").build();
		}

	}

}
