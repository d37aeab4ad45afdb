package dev.distlock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockShedLockAutoConfiguration}.
 */
class DistlockShedLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockShedLockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local", "distlock.key-prefix=shedlock-ac:");

	@Test
	void runWithShedLockShouldCreateALockProviderOnTheLockTemplate() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(DistlockLockProvider.class);
			LockProvider provider = context.getBean(LockProvider.class);
			Optional<SimpleLock> lock = provider.lock(configuration("nightly-report"));
			assertThat(lock).as("the first lock").isPresent();
			assertThat(provider.lock(configuration("nightly-report"))).as("a second lock while the first is held")
				.isEmpty();
			lock.get().unlock();
			Optional<SimpleLock> again = provider.lock(configuration("nightly-report"));
			assertThat(again).as("the lock after the unlock").isPresent();
			again.get().unlock();
		});
	}

	@Test
	void runWithAUserLockProviderShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserShedLockProviderConfiguration.class).run((context) -> {
			assertThat(context).doesNotHaveBean(DistlockLockProvider.class);
			assertThat(context.getBean(LockProvider.class))
				.isSameAs(context.getBean(UserShedLockProviderConfiguration.class).provider);
		});
	}

	@Test
	void runWhenDisabledShouldNotCreateALockProvider() {
		this.contextRunner.withPropertyValues("distlock.shedlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
	}

	@Test
	void runWithoutShedLockShouldNotCreateALockProvider() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistlockLockProvider.class));
	}

	@Test
	void runWithoutProviderShouldLockOnTheDefaultProvider() {
		this.contextRunner.withUserConfiguration(SecondBackendConfiguration.class).run((context) -> {
			SimpleLock lock = context.getBean(LockProvider.class).lock(configuration("cleanup")).orElseThrow();
			lock.unlock();
			assertThat(context.getBean(SecondBackendConfiguration.class).attempts)
				.as("attempts on the backend that is not the default")
				.hasValue(0);
		});
	}

	@Test
	void runWithProviderShouldLockOnThatProvider() {
		this.contextRunner.withUserConfiguration(SecondBackendConfiguration.class)
			.withPropertyValues("distlock.shedlock.provider=elsewhere")
			.run((context) -> {
				SimpleLock lock = context.getBean(LockProvider.class).lock(configuration("cleanup")).orElseThrow();
				lock.unlock();
				assertThat(context.getBean(SecondBackendConfiguration.class).attempts)
					.as("attempts on the backend distlock.shedlock.provider names")
					.hasValue(1);
			});
	}

	@Test
	void runWithUnknownProviderShouldFailWithAMessageNamingTheProperty() {
		this.contextRunner.withPropertyValues("distlock.shedlock.provider=nosuch")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.shedlock.provider is 'nosuch'")
				.hasMessageContaining("local"));
	}

	private static LockConfiguration configuration(String name) {
		return new LockConfiguration(Instant.now(), name, Duration.ofMinutes(1), Duration.ZERO);
	}

	@Configuration(proxyBeanMethods = false)
	static class UserShedLockProviderConfiguration {

		final LockProvider provider = (configuration) -> Optional.empty();

		@Bean
		LockProvider userShedLockProvider() {
			return this.provider;
		}

	}

	/** A second backend beside the default {@code local} one, named {@code elsewhere}. */
	@Configuration(proxyBeanMethods = false)
	static class SecondBackendConfiguration {

		final AtomicInteger attempts = new AtomicInteger();

		@Bean
		ForwardingLockProvider elsewhereLockProvider() {
			return new ForwardingLockProvider(new LocalLockProvider()) {

				@Override
				public String name() {
					return "elsewhere";
				}

				@Override
				public AttemptOutcome<HeldLock> tryAcquire(LockAttempt attempt) throws Exception {
					SecondBackendConfiguration.this.attempts.incrementAndGet();
					return super.tryAcquire(attempt);
				}

				@Override
				public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
					SecondBackendConfiguration.this.attempts.incrementAndGet();
					return super.acquire(attempt, waiter);
				}

			};
		}

	}

}
