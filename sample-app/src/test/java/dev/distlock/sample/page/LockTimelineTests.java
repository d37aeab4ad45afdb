package dev.distlock.sample.page;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.sample.InstanceName;
import dev.distlock.sample.page.LockCall.State;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LockTimeline} as the listener of a real {@link LockTemplate} on the in-JVM
 * backend: what it records for a hold, a call that tried once, a call whose wait ran out,
 * a second template's calls, and how it stays bounded.
 */
class LockTimelineTests {

	private final ExecutorService contender = Executors.newSingleThreadExecutor();

	private final LocalLockProvider provider = new LocalLockProvider();

	private LockTimeline timeline = new LockTimeline(new InstanceName("here"), 10);

	private LockTemplate template = template(this.timeline);

	@AfterEach
	void close() {
		this.contender.shutdownNow();
		this.template.close();
	}

	@Test
	void recordsAHoldFromRequestToReleaseWithItsToken() {
		try (Lease lease = this.template.acquire(LockRequest.builder("k").build())) {
			LockCall held = single();
			assertThat(held.state()).isEqualTo(State.HELD);
			assertThat(held.instance()).isEqualTo("here");
			assertThat(held.key()).isEqualTo("k");
			assertThat(held.fencingToken()).isEqualTo(lease.fencingToken());
			assertThat(held.acquiredAt()).isGreaterThanOrEqualTo(held.requestedAt());
			assertThat(held.releasedAt()).isNull();
		}
		LockCall released = single();
		assertThat(released.state()).isEqualTo(State.RELEASED);
		assertThat(released.releasedAt()).isGreaterThanOrEqualTo(released.acquiredAt());
		assertThat(released.heldUntil()).isEqualTo(released.releasedAt());
	}

	@Test
	void tellsACallThatTriedOnceFromOneWhoseWaitRanOut() throws Exception {
		try (Lease lease = this.template.acquire(LockRequest.builder("k").build())) {
			assertThat(contend(Duration.ZERO)).isEmpty();
			assertThat(contend(Duration.ofMillis(50))).isEmpty();
		}
		List<LockCall> calls = this.timeline.calls();
		assertThat(calls).extracting(LockCall::state).containsExactly(State.RELEASED, State.SKIPPED, State.TIMED_OUT);
		assertThat(calls.get(2).releasedAt() - calls.get(2).requestedAt()).as("time waited, ms")
			.isGreaterThanOrEqualTo(40);
		assertThat(calls.get(1).fencingToken()).isZero();
	}

	@Test
	void labelsTheCallsOfASecondTemplateAndKeepsTokensRising() {
		LocalLockProvider sameLocks = new LocalLockProvider(this.provider);
		try (LockTemplate other = new LockTemplate(List.of(sameLocks), sameLocks.name(), LockSettings.defaults(),
				List.of(this.timeline.as("there")))) {
			this.template.run("k", () -> {
			});
			other.run("k", () -> {
			});
		}
		List<LockCall> calls = this.timeline.calls();
		assertThat(calls).extracting(LockCall::instance).containsExactly("here", "there");
		assertThat(calls.get(1).fencingToken()).isGreaterThan(calls.get(0).fencingToken());
		assertThat(calls.get(1).acquiredAt()).isGreaterThanOrEqualTo(calls.get(0).releasedAt());
	}

	@Test
	void keepsOnlyTheLastCallsUpToItsCapacity() {
		this.template.close();
		this.timeline = new LockTimeline(new InstanceName("here"), 3);
		this.template = template(this.timeline);
		for (int i = 1; i <= 5; i++) {
			this.template.run("k" + i, () -> {
			});
		}
		assertThat(this.timeline.calls()).extracting(LockCall::id).containsExactly(3L, 4L, 5L);
		assertThat(this.timeline.calls()).extracting(LockCall::key).containsExactly("k3", "k4", "k5");
	}

	@Test
	void refusesACapacityBelowOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LockTimeline(new InstanceName("here"), 0))
			.withMessageContaining("sample.timeline.capacity");
	}

	private Optional<Lease> contend(Duration wait) throws Exception {
		// another thread: the holder's own thread would re-enter its lock
		return this.contender.submit(() -> this.template.tryAcquire(LockRequest.builder("k").waitTime(wait).build()))
			.get(10, TimeUnit.SECONDS);
	}

	private LockCall single() {
		List<LockCall> calls = this.timeline.calls();
		assertThat(calls).hasSize(1);
		return calls.get(0);
	}

	private LockTemplate template(LockTimeline listener) {
		return new LockTemplate(List.of(this.provider), this.provider.name(), LockSettings.defaults(),
				List.of(listener));
	}

}
