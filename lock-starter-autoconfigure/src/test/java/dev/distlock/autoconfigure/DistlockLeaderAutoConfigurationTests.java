package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockContext;
import dev.distlock.leader.LeaderCandidate;
import dev.distlock.leader.LeaderEndpoint;
import dev.distlock.leader.LeaderOnly;
import dev.distlock.leader.LeadershipEvent;
import dev.distlock.leader.LeadershipGrantedEvent;
import dev.distlock.leader.LeadershipRevokedEvent;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistlockLeaderAutoConfiguration}: two application contexts over one
 * local lock state stand for two instances of one application.
 */
class DistlockLeaderAutoConfigurationTests {

	private final LocalLockProvider shared = new LocalLockProvider();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, DistlockAutoConfiguration.class,
				DistlockLeaderAutoConfiguration.class, DistlockEndpointAutoConfiguration.class))
		.withBean(LocalLockProvider.class, () -> new LocalLockProvider(this.shared))
		.withUserConfiguration(JobConfiguration.class)
		.withPropertyValues("distlock.provider=local", "spring.application.name=billing");

	@Test
	void runWhenEnabledShouldLeadPublishEventsAndRunLeaderOnlyMethodsWithTheTermsLease() {
		this.contextRunner
			.withPropertyValues("distlock.leader.enabled=true", "distlock.leader.lease=1s",
					"management.endpoints.web.exposure.include=distlockLeader")
			.run((context) -> {
				LeaderCandidate candidate = context.getBean(LeaderCandidate.class);
				assertThat(candidate.getGroup()).isEqualTo("billing");
				await().atMost(Duration.ofSeconds(10)).until(candidate::isLeader);
				Job job = context.getBean(Job.class);
				assertThat(job.run()).isEqualTo(candidate.currentTerm().orElseThrow().fencingToken());
				LeaderEndpoint.LeaderDescriptor view = context.getBean(LeaderEndpoint.class).leader();
				assertThat(view.leader()).isTrue();
				assertThat(view.group()).isEqualTo("billing");
				assertThat(view.fencingToken()).isEqualTo(job.run());
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(context.getBean(Events.class).received).hasSize(1)
						.first()
						.isInstanceOf(LeadershipGrantedEvent.class));
				context.getBean(LeaderEndpoint.class).yieldLeadership();
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(context.getBean(Events.class).received)
						.anySatisfy((event) -> assertThat(event).isInstanceOf(LeadershipRevokedEvent.class)));
			});
	}

	@Test
	void runOnTheInstanceThatDoesNotLeadShouldSkipLeaderOnlyMethods() {
		this.contextRunner.withPropertyValues("distlock.leader.enabled=true", "distlock.leader.lease=1s")
			.run((leading) -> {
				await().atMost(Duration.ofSeconds(10)).until(leading.getBean(LeaderCandidate.class)::isLeader);
				this.contextRunner.withPropertyValues("distlock.leader.enabled=true", "distlock.leader.lease=1s")
					.run((other) -> {
						Thread.sleep(1500);
						assertThat(other.getBean(LeaderCandidate.class).isLeader()).isFalse();
						assertThat(other.getBean(Job.class).run()).as("skipped call").isNull();
						assertThat(other.getBean(Job.class).runs).isZero();
					});
			});
	}

	@Test
	void runWhenDisabledShouldCreateNoCandidateAndRefuseLeaderOnlyCalls() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(LeaderCandidate.class).doesNotHaveBean(LeaderEndpoint.class);
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> context.getBean(Job.class).run())
				.withMessageContaining("distlock.leader.enabled=true");
		});
	}

	@Test
	void runWithLeaderOnlyMethodReturningPrimitiveShouldFailAtStartup() {
		this.contextRunner.withUserConfiguration(BadJobConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("returns int"));
	}

	@Test
	void runWithTooShortLeaseShouldFailAtStartup() {
		this.contextRunner.withPropertyValues("distlock.leader.enabled=true", "distlock.leader.lease=10ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distlock.leader.lease"));
	}

	@Configuration(proxyBeanMethods = false)
	static class JobConfiguration {

		@Bean
		Job job() {
			return new Job();
		}

		@Bean
		Events events() {
			return new Events();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadJobConfiguration {

		@Bean
		BadJob badJob() {
			return new BadJob();
		}

	}

	static class Job {

		volatile int runs;

		@LeaderOnly
		public Long run() {
			this.runs++;
			return LockContext.currentLease().fencingToken();
		}

	}

	static class BadJob {

		@LeaderOnly
		public int run() {
			return 1;
		}

	}

	static class Events implements ApplicationListener<LeadershipEvent> {

		final List<LeadershipEvent> received = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LeadershipEvent event) {
			this.received.add(event);
		}

	}

}
