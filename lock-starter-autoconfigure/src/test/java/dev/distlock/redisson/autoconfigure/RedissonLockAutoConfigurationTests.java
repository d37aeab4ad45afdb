package dev.distlock.redisson.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.redisson.RedissonLockProvider;
import dev.distlock.redisson.RedissonQuorumLockProvider;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedissonLockAutoConfiguration}. The application's
 * {@link RedissonClient} comes from a user configuration, as
 * {@code redisson-spring-boot-starter} would supply it.
 */
class RedissonLockAutoConfigurationTests {

	private static final String PREFIX = "ac:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedissonLockAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.key-prefix=" + PREFIX);

	@Test
	void runWhenProviderIsRedissonAndAClientExistsShouldLockThroughRedisson() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.provider=redisson")
			.run((context) -> {
				assertThat(context).hasSingleBean(RedissonLockProvider.class);
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaultProvider()).isSameAs(context.getBean(RedissonLockProvider.class));
				assertThat(template.execute("order-1", () -> "locked")).isEqualTo("locked");
			});
	}

	@Test
	void runWithFenceRetentionShouldApplyItToBothProviders() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.provider=redisson", "distlock.redisson.fence-retention=10m",
					"distlock.redisson.nodes=" + redisAddress(), "distlock.redisson-quorum.enabled=true")
			.run((context) -> {
				assertThat(context.getBean(RedissonLockProvider.class).getFenceRetention())
					.isEqualTo(Duration.ofMinutes(10));
				assertThat(context.getBean(RedissonQuorumLockProvider.class).getFenceRetention())
					.isEqualTo(Duration.ofMinutes(10));
			});
	}

	@Test
	void runWithoutFenceRetentionShouldKeepCountersAnHour() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.run((context) -> assertThat(context.getBean(RedissonLockProvider.class).getFenceRetention())
				.isEqualTo(Duration.ofHours(1)));
	}

	@Test
	void runWithACallTimeoutShouldBoundTheProvidersCallsByIt() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.provider=redisson", "distlock.call-timeout=300ms")
			.run((context) -> assertThat(context.getBean(RedissonLockProvider.class).getCallTimeout())
				.isEqualTo(Duration.ofMillis(300)));
	}

	@Test
	void runWithoutACallTimeoutShouldBoundTheProvidersCallsByOneSecond() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.run((context) -> assertThat(context.getBean(RedissonLockProvider.class).getCallTimeout())
				.isEqualTo(Duration.ofSeconds(1)));
	}

	@Test
	void runWithoutProviderSetShouldPickRedissonWhenItIsTheOnlyBackend() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.run((context) -> assertThat(context.getBean(LockTemplate.class).defaultProvider())
				.isInstanceOf(RedissonLockProvider.class));
	}

	@Test
	void runWithoutRedissonOnTheClasspathShouldBackOff() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.redisson"))
			.withPropertyValues("distlock.provider=local")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RedissonLockProvider.class);
				assertThat(context).doesNotHaveBean(RedissonQuorumLockProvider.class);
				assertThat(context.getBean(LockTemplate.class).providers()).containsOnlyKeys("local");
			});
	}

	@Test
	void runWithoutRedissonClientClassShouldBackOffEvenWithNodes() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedissonClient.class))
			.withPropertyValues("distlock.provider=local", "distlock.redisson.nodes=redis://127.0.0.1:1")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockTemplate.class).providers()).containsOnlyKeys("local");
			});
	}

	@Test
	void runWhenRedissonIsChosenButMissingShouldFailWithAMessage() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.redisson"))
			.withPropertyValues("distlock.provider=redisson")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("'redisson'"));
	}

	@Test
	void runWithoutARedissonClientBeanShouldNotCreateProvider() {
		this.contextRunner.withPropertyValues("distlock.provider=local")
			.run((context) -> assertThat(context).doesNotHaveBean(RedissonLockProvider.class));
	}

	@Test
	void runWhenDisabledShouldNotCreateProvider() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.provider=local", "distlock.redisson.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RedissonLockProvider.class);
				assertThat(context.getBean(LockTemplate.class).defaultProvider()).isInstanceOf(LocalLockProvider.class);
			});
	}

	@Test
	void runWhenEnabledShouldRegisterBesideTheDefaultProvider() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.provider=local", "distlock.redisson.enabled=true")
			.run((context) -> {
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.providers()).containsOnlyKeys("local", "redisson");
				assertThat(template.defaultProvider()).isInstanceOf(LocalLockProvider.class);
			});
	}

	@Test
	void runWithAUserProviderShouldBackOff() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class, UserProviderConfiguration.class)
			.withPropertyValues("distlock.provider=redisson")
			.run((context) -> assertThat(context).getBean(RedissonLockProvider.class)
				.isSameAs(context.getBean("myProvider")));
	}

	@Test
	void runWithCustomizersShouldApplyThemInOrderAfterTheProperties() {
		java.util.List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.provider=redisson", "distlock.redisson.fence-retention=10m",
					"distlock.redisson.nodes=" + redisAddress(), "distlock.redisson-quorum.enabled=true")
			.withBean("late", RedissonLockProviderCustomizer.class, () -> new OrderedRedisson(2, calls))
			.withBean("early", RedissonLockProviderCustomizer.class, () -> new OrderedRedisson(1, calls))
			.withBean(RedissonQuorumNodeConfigCustomizer.class, () -> (config) -> {
				calls.add("node " + config.useSingleServer().getAddress());
				config.useSingleServer().setClientName("distlock-quorum-test");
			})
			.run((context) -> {
				assertThat(context.getBean(RedissonLockProvider.class).getFenceRetention())
					.isEqualTo(Duration.ofMinutes(2));
				assertThat(calls).containsSubsequence("provider 1", "provider 2").contains("node " + redisAddress());
				assertThat(context.getBean(RedissonQuorumLockProvider.class).getFenceRetention())
					.isEqualTo(Duration.ofMinutes(10));
			});
	}

	/** Records its call and sets the fence retention to its order in minutes. */
	record OrderedRedisson(int order,
			java.util.List<String> calls) implements RedissonLockProviderCustomizer, org.springframework.core.Ordered {

		@Override
		public void customize(RedissonLockProvider provider) {
			this.calls.add("provider " + this.order);
			provider.setFenceRetention(Duration.ofMinutes(this.order));
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	@Test
	void runWithNodesShouldCreateTheQuorumProvider() {
		this.contextRunner
			.withPropertyValues("distlock.provider=redisson-quorum", "distlock.redisson.nodes=" + redisAddress(),
					"distlock.redisson.node-timeout=1s")
			.run((context) -> {
				assertThat(context).hasSingleBean(RedissonQuorumLockProvider.class);
				assertThat(context).doesNotHaveBean(RedissonLockProvider.class);
				RedissonQuorumLockProvider provider = context.getBean(RedissonQuorumLockProvider.class);
				assertThat(provider.majority()).isEqualTo(1);
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaultProvider()).isSameAs(provider);
				assertThat(template.execute("quorum-1", () -> "locked")).isEqualTo("locked");
			});
	}

	@Test
	void runWithAUserQuorumProviderShouldBackOff() {
		this.contextRunner
			.withPropertyValues("distlock.provider=redisson-quorum", "distlock.redisson.nodes=" + redisAddress())
			.withBean("myQuorum", RedissonQuorumLockProvider.class,
					() -> RedissonQuorumLockProvider.connect(java.util.List.of(redisAddress()), Duration.ofSeconds(1),
							null),
					(definition) -> definition.setDestroyMethodName("close"))
			.run((context) -> assertThat(context).getBean(RedissonQuorumLockProvider.class)
				.isSameAs(context.getBean("myQuorum")));
	}

	@Test
	void runWithNodesAndAClientAndNoChoiceShouldAskForOne() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.redisson.nodes=" + redisAddress())
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("redisson-quorum")
				.hasMessageContaining("distlock.provider"));
	}

	@Test
	void runWithNodesButTheQuorumProviderDisabledShouldNotCreateIt() {
		this.contextRunner.withUserConfiguration(RedissonClientConfiguration.class)
			.withPropertyValues("distlock.redisson.nodes=" + redisAddress(), "distlock.redisson-quorum.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RedissonQuorumLockProvider.class);
				assertThat(context.getBean(LockTemplate.class).defaultProvider())
					.isInstanceOf(RedissonLockProvider.class);
			});
	}

	@AfterAll
	static void deleteKeys() {
		RedissonClient client = new RedissonClientConfiguration().redissonClient();
		try {
			// fencing counters outlive their locks by design; tests leave none behind
			client.getKeys().deleteByPattern("*" + PREFIX + "*");
		}
		finally {
			client.shutdown();
		}
	}

	private static String redisAddress() {
		URI uri = TestServers.redisUri();
		return "redis://" + uri.getHost() + ":" + uri.getPort();
	}

	@Configuration(proxyBeanMethods = false)
	static class RedissonClientConfiguration {

		@Bean(destroyMethod = "shutdown")
		RedissonClient redissonClient() {
			Config config = new Config();
			config.useSingleServer().setAddress(redisAddress()).setConnectionMinimumIdleSize(1);
			return Redisson.create(config);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserProviderConfiguration {

		@Bean
		RedissonLockProvider myProvider(RedissonClient redissonClient) {
			return new RedissonLockProvider(redissonClient);
		}

	}

}
