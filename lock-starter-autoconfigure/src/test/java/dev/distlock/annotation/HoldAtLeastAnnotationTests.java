package dev.distlock.annotation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock(holdAtLeast = ...)}: checked at startup, and a job whose method
 * ends sooner keeps its lock until the hold ends.
 */
@Timeout(30)
class HoldAtLeastAnnotationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local", "job.hold=400ms");

	@Test
	void jobRunAgainWithinItsHoldIsSkippedAndRunsOnceTheHoldEnded() {
		this.contextRunner.withBean(Job.class).run((context) -> {
			Job job = context.getBean(Job.class);
			assertThat(job.run()).as("first run").isTrue();
			assertThat(job.run()).as("run again within the hold of 400 ms").isNull();
			Thread.sleep(500);
			assertThat(job.run()).as("run after the hold ended").isTrue();
			assertThat(job.runs()).isEqualTo(2);
		});
	}

	@Test
	void negativeHoldFailsStartupNamingTheMethod() {
		this.contextRunner.withBean(NegativeHold.class)
			.run((context) -> assertConfigurationFailure(context, NegativeHold.class.getName() + ".run",
					"holdAtLeast '-1s' must not be negative"));
	}

	@Test
	void holdLongerThanTheFixedLeaseFailsStartup() {
		this.contextRunner.withBean(HoldBeyondLease.class)
			.run((context) -> assertConfigurationFailure(context, HoldBeyondLease.class.getName() + ".run",
					"holdAtLeast '10s' (PT10S) must not be longer than its fixed lease (PT5S)"));
	}

	@Test
	void unparseableHoldFailsStartup() {
		this.contextRunner.withBean(UnparseableHold.class)
			.run((context) -> assertConfigurationFailure(context, UnparseableHold.class.getName() + ".run",
					"holdAtLeast 'later' is not a duration"));
	}

	@Test
	void requestRefusesNegativeHoldAndHoldBeyondItsLease() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> LockRequest.builder("k").holdAtLeast(Duration.ofSeconds(-1)).build())
			.withMessageContaining("Hold-at-least of lock 'k' must not be negative");
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(
				() -> LockRequest.builder("k").lease(Duration.ofSeconds(1)).holdAtLeast(Duration.ofSeconds(2)).build())
			.withMessageContaining("must not be longer than its fixed lease (PT1S)");
		assertThat(LockRequest.builder("k")
			.lease(Duration.ofSeconds(2))
			.holdAtLeast(Duration.ofSeconds(2))
			.build()
			.toBuilder()
			.build()
			.holdAtLeast()).isEqualTo(Duration.ofSeconds(2));
	}

	private static void assertConfigurationFailure(AssertableApplicationContext context, String... fragments) {
		assertThat(context).hasFailed();
		LockConfigurationException failure = null;
		for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
			if (t instanceof LockConfigurationException ex) {
				failure = ex;
				break;
			}
		}
		assertThat(failure).as("a LockConfigurationException in the causes of %s", context.getStartupFailure())
			.isNotNull();
		for (String fragment : fragments) {
			assertThat(failure.getMessage()).contains(fragment);
		}
	}

	public static class Job {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "job", waitTime = "0", onFailure = LockFailureAction.SKIP, holdAtLeast = "${job.hold}")
		public @Nullable Boolean run() {
			this.runs.incrementAndGet();
			return true;
		}

	}

	public static class NegativeHold {

		@DistributedLock(holdAtLeast = "-1s")
		public void run() {
		}

	}

	public static class HoldBeyondLease {

		@DistributedLock(lease = "5s", holdAtLeast = "10s")
		public void run() {
		}

	}

	public static class UnparseableHold {

		@DistributedLock(holdAtLeast = "later")
		public void run() {
		}

	}

}
