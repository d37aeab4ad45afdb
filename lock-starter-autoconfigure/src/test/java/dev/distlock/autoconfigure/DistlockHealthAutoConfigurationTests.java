package dev.distlock.autoconfigure;

import dev.distlock.core.LockTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockHealthAutoConfiguration}.
 */
class DistlockHealthAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistlockHealthAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local");

	@Test
	void runShouldCreateOneIndicatorPerProvider() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasBean("distlockHealthContributor");
			CompositeHealthContributor composite = context.getBean("distlockHealthContributor",
					CompositeHealthContributor.class);
			assertThat(composite.stream().map(CompositeHealthContributor.Entry::name)).containsExactly("local");
			HealthContributor local = composite.getContributor("local");
			assertThat(local).isInstanceOf(HealthIndicator.class);
			assertThat(((HealthIndicator) local).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void runWhenDisabledShouldNotCreateIndicator() {
		this.contextRunner.withPropertyValues("management.health.distlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("distlockHealthContributor"));
	}

	@Test
	void runWithoutHealthModuleShouldNotCreateIndicator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(LockTemplate.class);
			assertThat(context).doesNotHaveBean("distlockHealthContributor");
		});
	}

	@Test
	void runWithUserIndicatorShouldBackOff() {
		this.contextRunner
			.withBean("distlockHealthIndicator", HealthIndicator.class,
					() -> () -> org.springframework.boot.health.contributor.Health.up().build())
			.run((context) -> assertThat(context).doesNotHaveBean("distlockHealthContributor"));
	}

}
