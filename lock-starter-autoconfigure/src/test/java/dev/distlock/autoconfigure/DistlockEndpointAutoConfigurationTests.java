package dev.distlock.autoconfigure;

import java.util.List;

import dev.distlock.core.LockTemplate;
import dev.distlock.leader.LeaderEndpoint;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.observability.LocksEndpoint;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistlockEndpointAutoConfiguration}: the {@code distlockLocks} and
 * {@code distlockLeader} endpoints, created when available and named so that an
 * application's own {@code locks} or {@code leader} endpoint does not collide.
 */
class DistlockEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(EndpointAutoConfiguration.class, DistlockEndpointAutoConfiguration.class,
						DistlockAutoConfiguration.class, DistlockLeaderAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local");

	@Test
	void runWhenExposedShouldCreateEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=distlockLocks")
			.run((context) -> {
				assertThat(context).hasSingleBean(LocksEndpoint.class);
				context.getBean(LockTemplate.class)
					.run("order:1",
							() -> assertThat(context.getBean(LocksEndpoint.class).locks().leases()).singleElement()
								.satisfies((lease) -> assertThat(lease.key()).isEqualTo("order:1")));
			});
	}

	@Test
	void runWithUserEndpointShouldBackOff() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=distlockLocks")
			.withBean("myLocksEndpoint", LocksEndpoint.class,
					() -> new LocksEndpoint(new LockTemplate(new LocalLockProvider())))
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
			.withPropertyValues("management.endpoints.web.exposure.include=distlockLocks",
					"management.endpoint.distlocklocks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void runWithoutActuatorShouldNotCreateEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=distlockLocks")
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
			.withPropertyValues("management.endpoints.web.exposure.include=distlockLocks")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void endpointIdsAreDistlockLocksAndDistlockLeader() {
		assertThat(LocksEndpoint.class.getAnnotation(Endpoint.class).id()).isEqualTo("distlockLocks");
		assertThat(LeaderEndpoint.class.getAnnotation(Endpoint.class).id()).isEqualTo("distlockLeader");
	}

	@Test
	void runWhenOnlyTheGenericIdsAreExposedShouldNotCreateEndpoints() {
		this.contextRunner
			.withPropertyValues("distlock.leader.enabled=true",
					"management.endpoints.web.exposure.include=locks,leader")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class)
				.doesNotHaveBean(LeaderEndpoint.class));
	}

	@Test
	void runWhenLeaderElectionIsOnAndExposedShouldCreateLeaderEndpoint() {
		this.contextRunner
			.withPropertyValues("distlock.leader.enabled=true",
					"management.endpoints.web.exposure.include=distlockLeader")
			.run((context) -> assertThat(context).hasSingleBean(LeaderEndpoint.class)
				.doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void runWhenLeaderEndpointAccessIsNoneShouldNotCreateIt() {
		this.contextRunner
			.withPropertyValues("distlock.leader.enabled=true",
					"management.endpoints.web.exposure.include=distlockLeader",
					"management.endpoint.distlockleader.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderEndpoint.class));
	}

	@Test
	void runWithoutLeaderElectionShouldNotCreateLeaderEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*")
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class)
				.doesNotHaveBean(LeaderEndpoint.class));
	}

	@Test
	void runBesideApplicationEndpointsNamedLocksAndLeaderShouldExposeAllFourUnderTheirOwnPaths() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					WebEndpointAutoConfiguration.class, DistlockEndpointAutoConfiguration.class,
					DistlockAutoConfiguration.class, DistlockLeaderAutoConfiguration.class))
			.withPropertyValues("distlock.provider=local", "distlock.leader.enabled=true",
					"management.endpoints.web.exposure.include=*")
			.withBean(ApplicationLocksEndpoint.class)
			.withBean(ApplicationLeaderEndpoint.class)
			.run((context) -> {
				List<ExposableWebEndpoint> endpoints = List
					.copyOf(context.getBean(WebEndpointsSupplier.class).getEndpoints());
				assertThat(endpoints).extracting(ExposableWebEndpoint::getEndpointId)
					.contains(EndpointId.of("distlockLocks"), EndpointId.of("distlockLeader"), EndpointId.of("locks"),
							EndpointId.of("leader"));
				assertThat(endpoints).extracting(ExposableWebEndpoint::getRootPath)
					.contains("distlockLocks", "distlockLeader", "locks", "leader");
			});
	}

	@Endpoint(id = "locks")
	static class ApplicationLocksEndpoint {

		@ReadOperation
		String locks() {
			return "the application's own";
		}

	}

	@Endpoint(id = "leader")
	static class ApplicationLeaderEndpoint {

		@ReadOperation
		String leader() {
			return "the application's own";
		}

	}

}
