package dev.distlock.autoconfigure;

import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.observability.MetricsLockListener;
import dev.distlock.observability.ObservationLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockMetricsAutoConfiguration}, with the meters a user sees when
 * Spring Boot's metrics and observations are configured.
 */
class DistlockMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistlockMetricsAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local");

	@Test
	void runWithBootsMetricsAndObservationsShouldRecordEachLockMeterOnce() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
					ObservationAutoConfiguration.class, DistlockObservationAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(MetricsLockListener.class)
					.hasSingleBean(ObservationLockListener.class);
				LockTemplate template = context.getBean(LockTemplate.class);
				template.run(LockRequest.builder("order:1").name("orders").build(), () -> {
				});
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				Timer acquire = registry.get("distlock.acquire").timer();
				assertThat(acquire.getId().getTags()).extracting(Tag::getKey)
					.as("the acquire timer's tags")
					.containsExactlyInAnyOrder("provider", "type", "name", "outcome", "error");
				assertThat(acquire.getId().getTag("outcome")).isEqualTo("acquired");
				assertThat(acquire.count()).isEqualTo(1);
				Timer hold = registry.get("distlock.hold").tags("provider", "local", "name", "orders").timer();
				assertThat(hold.count()).isEqualTo(1);
				assertThat(hold.getId().getTag("outcome")).isEqualTo("released");
				assertThat(registry.get("distlock.leases.active").tag("name", "orders").gauge().value()).isZero();
				assertThat(registry.find("distlock.acquire").meters()).as("one acquire meter, the derived timer")
					.hasSize(1);
				assertThat(registry.find("distlock.hold").meters()).as("one hold meter, the derived timer").hasSize(1);
			});
	}

	@Test
	void runWithoutObservationsShouldRecordLeaseMetersButNoTimers() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
			.run((context) -> {
				context.getBean(LockTemplate.class).run("order:1", () -> {
				});
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("distlock.leases.active").gauge()).isNotNull();
				assertThat(registry.find("distlock.acquire").meters()).isEmpty();
				assertThat(registry.find("distlock.hold").meters()).isEmpty();
			});
	}

	@Test
	void runWithDistlockMetersDisabledShouldRecordNothing() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
					ObservationAutoConfiguration.class, DistlockObservationAutoConfiguration.class))
			.withPropertyValues("management.metrics.enable.distlock=false")
			.run((context) -> {
				context.getBean(LockTemplate.class).run("order:1", () -> {
				});
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.getMeters()).extracting((meter) -> meter.getId().getName())
					.noneMatch((name) -> name.startsWith("distlock."));
			});
	}

	@Test
	void runWithUserMeterRegistryShouldCreateListener() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(MetricsLockListener.class);
			context.getBean(LockTemplate.class).run("order:1", () -> {
			});
			assertThat(context.getBean(SimpleMeterRegistry.class).find("distlock.leases.active").gauge()).isNotNull();
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
