package dev.distlock.sample.demo;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.TryOnceLockProvider;
import dev.distlock.sample.SampleProperties;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's own checks: a lock that lets everybody in is caught (so the demo's
 * "violations = 0" means something).
 */
class ContentionDemoTests {

	@Test
	void aLockThatAdmitsEveryoneShowsViolationsAndALostCount() throws Exception {
		try (LockTemplate broken = new LockTemplate(new AdmitsEveryone())) {
			ContentionDemo demo = new ContentionDemo(broken, List.of(),
					new SampleProperties.Demo(null, 8, null, "demo:broken", Duration.ofSeconds(5)));
			ContentionDemo.DemoResult result = demo.run(8, 8, 20_000);
			assertThat(result.violations()).as("overlaps caught: %s", result).isPositive();
			assertThat(result.correct()).isFalse();
		}
	}

	/**
	 * A "backend" that grants every request at once, with growing tokens: exclusion is
	 * all it lacks.
	 */
	static final class AdmitsEveryone implements TryOnceLockProvider<HeldLock> {

		private final AtomicLong tokens = new AtomicLong();

		@Override
		public String name() {
			return "admits-everyone";
		}

		@Override
		public Set<LockType> supportedTypes() {
			return EnumSet.allOf(LockType.class);
		}

		@Override
		public AttemptOutcome<HeldLock> tryAcquire(LockAttempt attempt) {
			long token = this.tokens.incrementAndGet();
			HeldLock held = () -> token;
			return AttemptOutcome.acquired(held);
		}

		@Override
		public boolean renew(HeldLock lock, Duration lease) {
			return true;
		}

		@Override
		public void release(HeldLock lock) {
		}

	}

}
