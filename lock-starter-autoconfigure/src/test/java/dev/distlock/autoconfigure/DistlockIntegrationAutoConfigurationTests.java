package dev.distlock.autoconfigure;

import java.util.concurrent.locks.Lock;

import dev.distlock.integration.DistlockLockRegistry;
import dev.distlock.integration.LeaseLock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockIntegrationAutoConfiguration}.
 */
class DistlockIntegrationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockIntegrationAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local", "distlock.key-prefix=siac:");

	@Test
	void runWithSpringIntegrationShouldCreateARegistryOnTheLockTemplate() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(DistlockLockRegistry.class);
			Lock lock = context.getBean(LockRegistry.class).obtain("orders");
			assertThat(lock).isInstanceOf(LeaseLock.class);
			assertThat(lock.tryLock()).isTrue();
			try {
				assertThat(((LeaseLock) lock).lease()).hasValueSatisfying(
						(lease) -> assertThat(lease.key()).as("the key, without the prefix").isEqualTo("orders"));
			}
			finally {
				lock.unlock();
			}
		});
	}

	@Test
	void runWithAUserRegistryShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserRegistryConfiguration.class).run((context) -> {
			assertThat(context).doesNotHaveBean(DistlockLockRegistry.class);
			assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
		});
	}

	@Test
	void runWithoutSpringIntegrationShouldNotCreateARegistry() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(LockRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistlockLockRegistry.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistryConfiguration {

		@Bean
		LockRegistry<Lock> userLockRegistry() {
			return new DefaultLockRegistry();
		}

	}

}
