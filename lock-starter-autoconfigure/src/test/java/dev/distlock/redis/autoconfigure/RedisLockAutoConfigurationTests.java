package dev.distlock.redis.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisReleaseMode;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockAutoConfiguration}, on Spring Boot's Redis auto-configuration
 * pointed at the Redis of {@link TestServers#redisUri()}.
 */
class RedisLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class, DistlockAutoConfiguration.class,
				DataRedisAutoConfiguration.class))
		.withPropertyValues(redisProperties());

	private static String[] redisProperties() {
		URI uri = TestServers.redisUri();
		return new String[] { "spring.data.redis.url=" + uri, "spring.data.redis.timeout=5s",
				"distlock.key-prefix=ac:" + UUID.randomUUID().toString().substring(0, 8) + ":" };
	}

	@Test
	void redisIsTheDefaultProviderWhenItIsTheOnlyBackendAndLocksOnTheServer() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockProvider.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			assertThat(template.defaultProvider()).isSameAs(context.getBean(RedisLockProvider.class));
			String prefix = template.settings().keyPrefix();
			assertThat(template.execute("ac-key", () -> {
				StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
				return redis.hasKey("{" + prefix + "ac-key}:mutex");
			})).as("the lock's key exists on the server while held").isTrue();
		});
	}

	@Test
	void waitForReplicasIsCheckedAtStartup() {
		this.contextRunner
			.withPropertyValues("distlock.redis.wait-for-replicas=1", "distlock.redis.replica-timeout=50ms")
			.run((context) -> assertThat(context.getBean(RedisLockProvider.class).getWaitForReplicas()).isEqualTo(1));
		this.contextRunner.withPropertyValues("distlock.redis.wait-for-replicas=-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.redis.wait-for-replicas must not be negative"));
	}

	@Test
	void callTimeoutBoundsTheProvidersCalls() {
		this.contextRunner.run((context) -> assertThat(context.getBean(RedisLockProvider.class).getCallTimeout())
			.isEqualTo(RedisLockProvider.DEFAULT_CALL_TIMEOUT));
		this.contextRunner.withPropertyValues("distlock.call-timeout=250ms")
			.run((context) -> assertThat(context.getBean(RedisLockProvider.class).getCallTimeout())
				.isEqualTo(Duration.ofMillis(250)));
	}

	@Test
	void propertiesConfigureTheProvider() {
		this.contextRunner
			.withPropertyValues("distlock.redis.waiter-timeout=3s", "distlock.redis.writer-preference=false",
					"distlock.redis.fence-retention=10m", "distlock.redis.release-mode=async")
			.run((context) -> {
				RedisLockProvider provider = context.getBean(RedisLockProvider.class);
				assertThat(provider.getReleaseMode()).isEqualTo(RedisReleaseMode.ASYNC);
				assertThat(provider.getWaiterTimeout()).isEqualTo(Duration.ofSeconds(3));
				assertThat(provider.isWriterPreference()).isFalse();
				assertThat(provider.getFenceRetention()).isEqualTo(Duration.ofMinutes(10));
				LockTemplate template = context.getBean(LockTemplate.class);
				template.acquire(LockRequest.builder("retention").lease(Duration.ofSeconds(5)).build()).release();
				Long ttl = context.getBean(StringRedisTemplate.class)
					.getExpire("{" + template.settings().keyPrefix() + "retention}:fence", TimeUnit.MILLISECONDS);
				assertThat(ttl).isBetween(Duration.ofMinutes(9).toMillis(), Duration.ofMinutes(10).toMillis());
			});
	}

	@Test
	void waiterTimeoutShorterThanTwiceTheLongestWaiterSleepFailsAtStartup() {
		this.contextRunner.withPropertyValues("distlock.redis.waiter-timeout=900ms").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.redis.waiter-timeout")
				.hasMessageContaining("distlock.wait.fallback-poll");
		});
	}

	@Test
	void waiterTimeoutMayBeShortWhenWaitersPollOften() {
		this.contextRunner
			.withPropertyValues("distlock.redis.waiter-timeout=900ms", "distlock.wait.fallback-poll=200ms",
					"distlock.wait.max-backoff=100ms")
			.run((context) -> assertThat(context.getBean(RedisLockProvider.class).getWaiterTimeout())
				.isEqualTo(Duration.ofMillis(900)));
	}

	@Test
	void backsOffWithoutSpringDataRedisOnTheClassPath() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class, Jedis.class))
			.withPropertyValues("distlock.provider=local")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockProvider.class);
				assertThat(context.getBean(LockTemplate.class).defaultProvider()).isInstanceOf(LocalLockProvider.class);
			});
	}

	@Test
	void backsOffWithoutAConnectionFactory() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class, DistlockAutoConfiguration.class))
			.withPropertyValues("distlock.provider=local")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockProvider.class));
	}

	@Test
	void backsOffWhenAnotherProviderIsChosen() {
		this.contextRunner.withPropertyValues("distlock.provider=local")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockProvider.class));
	}

	@Test
	void registersBesideTheDefaultProviderWhenEnabled() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.redis.enabled=true")
			.run((context) -> {
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaultProvider()).isInstanceOf(LocalLockProvider.class);
				assertThat(template.provider("redis")).isSameAs(context.getBean(RedisLockProvider.class));
			});
	}

	@Test
	void disabledBackendIsNotRegisteredEvenWhenItIsTheOnlyOne() {
		this.contextRunner.withPropertyValues("distlock.redis.enabled=false", "distlock.provider=local")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockProvider.class));
	}

	@Test
	void userDefinedProviderWins() {
		this.contextRunner.withUserConfiguration(UserProviderConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisLockProvider.class);
			assertThat(context.getBean(RedisLockProvider.class).getWaiterTimeout()).isEqualTo(Duration.ofSeconds(42));
		});
	}

	@Test
	void customizersApplyInOrderAfterTheProperties() {
		this.contextRunner.withPropertyValues("distlock.redis.waiter-timeout=7s")
			.withBean("second", RedisLockProviderCustomizer.class,
					() -> new WaiterTimeoutCustomizer(2, Duration.ofSeconds(9)))
			.withBean("first", RedisLockProviderCustomizer.class,
					() -> new WaiterTimeoutCustomizer(1, Duration.ofSeconds(8)))
			.run((context) -> assertThat(context.getBean(RedisLockProvider.class).getWaiterTimeout())
				.as("the last customizer in order wins over the earlier one and the property")
				.isEqualTo(Duration.ofSeconds(9)));
	}

	/** Sets the waiter timeout, in the given order. */
	record WaiterTimeoutCustomizer(int order,
			Duration waiterTimeout) implements RedisLockProviderCustomizer, org.springframework.core.Ordered {

		@Override
		public void customize(RedisLockProvider provider) {
			assertThat(provider.getWaiterTimeout()).as("customizer %d sees what came before", this.order)
				.isEqualTo(Duration.ofSeconds(6 + this.order));
			provider.setWaiterTimeout(this.waiterTimeout);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserProviderConfiguration {

		@Bean
		RedisLockProvider userRedisLockProvider(RedisConnectionFactory connectionFactory) {
			RedisLockProvider provider = new RedisLockProvider(connectionFactory);
			provider.setWaiterTimeout(Duration.ofSeconds(42));
			return provider;
		}

	}

}
