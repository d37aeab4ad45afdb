package dev.distlock.autoconfigure;

import dev.distlock.core.LockTemplate;
import dev.distlock.observability.LocksEndpoint;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockEndpointAutoConfiguration}.
 */
class DistlockEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
				DistlockEndpointAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local");

	@Test
	void runWhenExposedShouldCreateEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			assertThat(context).hasSingleBean(LocksEndpoint.class);
			context.getBean(LockTemplate.class)
				.run("order:1", () -> assertThat(context.getBean(LocksEndpoint.class).locks().leases()).singleElement()
					.satisfies((lease) -> assertThat(lease.key()).isEqualTo("order:1")));
		});
	}

	@Test
	void runWithUserEndpointShouldBackOff() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.withBean("myLocksEndpoint", LocksEndpoint.class,
					() -> new LocksEndpoint(new LockTemplate(new dev.distlock.local.LocalLockProvider())))
			.run((context) -> assertThat(context).getBean(LocksEndpoint.class)
				.isSameAs(context.getBean("myLocksEndpoint")));
	}

	@Test
	void runWhenNotExposedShouldNotCreateEndpoint() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void runWhenAccessIsNoneShouldNotCreateEndpoint() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void runWithoutActuatorShouldNotCreateEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(LockTemplate.class);
				assertThat(context).doesNotHaveBean(LocksEndpoint.class);
			});
	}

	@Test
	void runWithoutLockTemplateShouldNotCreateEndpoint() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(EndpointAutoConfiguration.class, DistlockEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

}
