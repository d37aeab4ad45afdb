package dev.distlock.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;

import dev.distlock.core.LatchTemplate;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.local.LocalLatchProvider;
import dev.distlock.redis.RedisLatchProvider;
import dev.distlock.redis.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockLatchAutoConfiguration}.
 */
class DistlockLatchAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistlockLatchAutoConfiguration.class, RedisLockAutoConfiguration.class,
				DistlockAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("distlock.key-prefix=lac:" + UUID.randomUUID().toString().substring(0, 8) + ":");

	private static String redisUrl() {
		URI uri = TestServers.redisUri();
		return "spring.data.redis.url=" + uri;
	}

	@Test
	void runWithLocalProviderShouldCreateLocalLatches() {
		this.contextRunner.withPropertyValues("distlock.provider=local").run((context) -> {
			assertThat(context).hasSingleBean(LocalLatchProvider.class).doesNotHaveBean(RedisLatchProvider.class);
			LatchTemplate latches = context.getBean(LatchTemplate.class);
			assertThat(latches.provider()).isSameAs(context.getBean(LocalLatchProvider.class));
			assertThat(latches.trySetCount("job", 1)).isTrue();
			latches.countDown("job");
			assertThat(latches.await("job", Duration.ZERO)).isTrue();
		});
	}

	@Test
	void runWithRedisShouldPutLatchesOnRedisWithTheConfiguredExpiry() {
		this.contextRunner.withPropertyValues(redisUrl(), "distlock.latch.expiry=5s").run((context) -> {
			assertThat(context).hasSingleBean(RedisLatchProvider.class);
			LatchTemplate latches = context.getBean(LatchTemplate.class);
			assertThat(latches.provider().name()).isEqualTo("redis");
			assertThat(latches.trySetCount("batch", 2)).isTrue();
			assertThat(latches.count("batch")).isEqualTo(2);
			org.springframework.data.redis.core.StringRedisTemplate redis = context
				.getBean(org.springframework.data.redis.core.StringRedisTemplate.class);
			String prefix = context.getBean(dev.distlock.core.LockTemplate.class).settings().keyPrefix();
			assertThat(redis.getExpire("{" + prefix + "batch}:latch")).as("seconds to live").isBetween(1L, 5L);
			latches.countDown("batch");
			latches.countDown("batch");
			assertThat(latches.count("batch")).isZero();
		});
	}

	@Test
	void runWithSeveralBackendsShouldFollowTheDefaultLockProviderOrTheLatchProperty() {
		this.contextRunner.withPropertyValues(redisUrl(), "distlock.provider=redis", "distlock.local.enabled=true")
			.run((context) -> {
				assertThat(context).hasSingleBean(LocalLatchProvider.class).hasSingleBean(RedisLatchProvider.class);
				assertThat(context.getBean(LatchTemplate.class).provider().name()).isEqualTo("redis");
			});
		this.contextRunner
			.withPropertyValues(redisUrl(), "distlock.provider=redis", "distlock.local.enabled=true",
					"distlock.latch.provider=local")
			.run((context) -> assertThat(context.getBean(LatchTemplate.class).provider().name()).isEqualTo("local"));
	}

	@Test
	void runWithUnknownLatchProviderShouldFailNamingIt() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.latch.provider=zookeeper")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(LockConfigurationException.class)
					.hasMessageContaining("distlock.latch.provider is 'zookeeper'")
					.hasMessageContaining("[local]");
			});
	}

	@Test
	void runWithNonPositiveExpiryShouldFail() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.latch.expiry=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.latch.expiry must be positive");
		});
	}

	@Test
	void runWhenDisabledShouldNotCreateLatches() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.latch.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LatchTemplate.class)
				.doesNotHaveBean(LocalLatchProvider.class));
	}

}
