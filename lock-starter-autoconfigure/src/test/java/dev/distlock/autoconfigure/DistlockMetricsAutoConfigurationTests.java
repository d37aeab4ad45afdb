package dev.distlock.autoconfigure;

import dev.distlock.core.LockTemplate;
import dev.distlock.observability.MetricsLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockMetricsAutoConfiguration}.
 */
class DistlockMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistlockMetricsAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local");

	@Test
	void runWithBootsMeterRegistryShouldRecordLocksInIt() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(MetricsLockListener.class);
				context.getBean(LockTemplate.class).run("order:1", () -> {
				});
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("distlock.acquire").tag("outcome", "acquired").timer().count()).isEqualTo(1);
				assertThat(registry.get("distlock.hold").tag("provider", "local").timer().count()).isEqualTo(1);
			});
	}

	@Test
	void runWithDistlockMetersDisabledShouldRecordNothing() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
			.withPropertyValues("management.metrics.enable.distlock=false")
			.run((context) -> {
				context.getBean(LockTemplate.class).run("order:1", () -> {
				});
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("distlock.acquire").timer()).isNull();
				assertThat(registry.find("distlock.hold").timer()).isNull();
			});
	}

	@Test
	void runWithUserMeterRegistryShouldCreateListener() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(MetricsLockListener.class);
			context.getBean(LockTemplate.class).run("order:1", () -> {
			});
			assertThat(context.getBean(SimpleMeterRegistry.class).find("distlock.acquire").timer()).isNotNull();
		});
	}

	@Test
	void runWithoutMeterRegistryShouldNotCreateListener() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockTemplate.class);
			assertThat(context).doesNotHaveBean(MetricsLockListener.class);
		});
	}

	@Test
	void runWithoutMicrometerShouldNotCreateListener() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer.core")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(LockTemplate.class);
			assertThat(context).doesNotHaveBean(MetricsLockListener.class);
		});
	}

	@Test
	void runWithUserListenerShouldBackOff() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		this.contextRunner.withBean(SimpleMeterRegistry.class, () -> registry)
			.withBean("myListener", MetricsLockListener.class, () -> new MetricsLockListener(registry))
			.run((context) -> assertThat(context).getBeanNames(MetricsLockListener.class)
				.containsExactly("myListener"));
	}

}
