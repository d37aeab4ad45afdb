package dev.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.LockTemplate;
import dev.distlock.observability.ObservationLockListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockObservationAutoConfiguration}.
 */
class DistlockObservationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistlockObservationAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local");

	@Test
	void runWithBootsObservationRegistryShouldObserveLocks() {
		List<String> stopped = new ArrayList<>();
		this.contextRunner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.withBean(ObservationHandler.class, () -> new ObservationHandler<Observation.Context>() {

				@Override
				public void onStop(Observation.Context context) {
					stopped.add(context.getName());
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			})
			.run((context) -> {
				assertThat(context).hasSingleBean(ObservationLockListener.class);
				context.getBean(LockTemplate.class).run("order:1", () -> {
				});
				assertThat(stopped).containsExactly("distlock.acquire", "distlock.hold");
			});
	}

	@Test
	void runWithUserListenerShouldBackOff() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.withBean("myListener", ObservationLockListener.class,
					() -> new ObservationLockListener(ObservationRegistry.NOOP))
			.run((context) -> assertThat(context).getBean(ObservationLockListener.class)
				.isSameAs(context.getBean("myListener")));
	}

	@Test
	void runWithObservationsOfDistlockDisabledShouldObserveNothing() {
		List<String> started = new ArrayList<>();
		this.contextRunner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.withPropertyValues("management.observations.enable.distlock=false")
			.withBean(ObservationHandler.class, () -> new ObservationHandler<Observation.Context>() {

				@Override
				public void onStart(Observation.Context context) {
					started.add(context.getName());
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			})
			.run((context) -> {
				context.getBean(LockTemplate.class).run("order:1", () -> {
				});
				assertThat(started).noneMatch((name) -> name.startsWith("distlock"));
			});
	}

	@Test
	void runWithoutObservationRegistryShouldNotCreateListener() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockTemplate.class);
			assertThat(context).doesNotHaveBean(ObservationLockListener.class);
		});
	}

	@Test
	void runWithoutMicrometerObservationShouldNotCreateListener() {
		this.contextRunner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ObservationLockListener.class);
			});
	}

}
