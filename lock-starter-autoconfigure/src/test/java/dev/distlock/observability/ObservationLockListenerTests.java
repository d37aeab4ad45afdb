package dev.distlock.observability;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.observability.RecordingObservationHandler.Recorded;
import dev.distlock.test.ForwardingLockProvider;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link ObservationLockListener} on a real {@link LockTemplate} over the local backend:
 * the wait for a lock is its own observation (span), backend calls nest under it, the
 * hold is another, and outcomes, errors and a lost lease are reported. No scope leaks
 * onto the thread.
 */
class ObservationLockListenerTests {

	private final RecordingObservationHandler handler = new RecordingObservationHandler();

	private final ObservationRegistry registry = ObservationRegistry.create();

	private final String prefix = "obs:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final LocalLockProvider backend = new LocalLockProvider();

	private final ScopeRecordingProvider provider = new ScopeRecordingProvider(new LocalLockProvider(this.backend),
			this.registry);

	private final LockTemplate template;

	private LockTemplate other;

	private H2TcpFixtureLockProvider fixture;

	ObservationLockListenerTests() {
		this.registry.observationConfig().observationHandler(this.handler);
		this.template = template(this.provider);
	}

	@AfterEach
	void close() {
		this.template.close();
		if (this.other != null) {
			this.other.close();
		}
		if (this.fixture != null) {
			this.fixture.close();
		}
		assertThat(this.registry.getCurrentObservation()).as("no observation left in scope on the test thread")
			.isNull();
	}

	@Test
	void acquisitionIsAnObservationInScopeOfTheBackendCalls() {
		Observation caller = Observation.start("caller", this.registry);
		Lease lease;
		try (Observation.Scope scope = caller.openScope()) {
			lease = this.template.acquire(LockRequest.builder("order:7").name("orders").build());
			assertThat(this.registry.getCurrentObservation()).as("the caller's observation is current again")
				.isSameAs(caller);
		}
		lease.release();
		caller.stop();
		List<Recorded> acquires = this.handler.named(ObservationLockListener.ACQUIRE_OBSERVATION);
		assertThat(acquires).hasSize(1);
		Recorded acquire = acquires.get(0);
		assertThat(acquire.context.getName()).isEqualTo("distlock.acquire");
		assertThat(acquire.isStopped()).isTrue();
		assertThat(acquire.parent()).isSameAs(caller.getContext());
		assertThat(acquire.low("provider")).isEqualTo("local");
		assertThat(acquire.low("type")).isEqualTo("mutex");
		assertThat(acquire.low("name")).isEqualTo("orders");
		assertThat(acquire.low("outcome")).isEqualTo("acquired");
		assertThat(acquire.high("distlock.key")).isEqualTo("order:7");
		assertThat(acquire.high("distlock.fencing-token")).isEqualTo(Long.toString(lease.fencingToken()));
		assertThat(this.provider.seen).as("observation current during the backend's acquire")
			.containsExactly(acquire.context);
	}

	@Test
	void holdIsAnObservationFromGrantToRelease() throws Exception {
		Observation caller = Observation.start("caller", this.registry);
		Lease lease;
		try (Observation.Scope scope = caller.openScope()) {
			lease = this.template.acquire(LockRequest.builder("invoice").build());
		}
		List<Recorded> holds = this.handler.named(ObservationLockListener.HOLD_OBSERVATION);
		assertThat(holds).hasSize(1);
		Recorded hold = holds.get(0);
		assertThat(hold.isStopped()).as("hold still open while the lease is held").isFalse();
		// released from another thread, as asynchronous code may
		CompletableFuture.runAsync(lease::release).get(10, TimeUnit.SECONDS);
		caller.stop();
		assertThat(hold.isStopped()).isTrue();
		assertThat(hold.context.getName()).isEqualTo("distlock.hold");
		assertThat(hold.parent()).as("hold is a child of the caller, not of the acquisition")
			.isSameAs(caller.getContext());
		assertThat(hold.low("name")).isEqualTo("none");
		assertThat(hold.low("outcome")).isEqualTo("released");
		Recorded acquire = this.handler.named(ObservationLockListener.ACQUIRE_OBSERVATION).get(0);
		assertThat(hold.startNanos).isGreaterThanOrEqualTo(acquire.stopNanos);
	}

	@Test
	void waitingForAnotherHolderShowsInTheAcquireObservation() throws Exception {
		this.other = template(new LocalLockProvider(this.backend));
		Lease holder = this.other.acquire(LockRequest.builder("busy").name("busy").build());
		CompletableFuture<Void> releaseLater = CompletableFuture.runAsync(holder::release,
				CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));
		this.template.run(LockRequest.builder("busy").name("busy").waitTime(Duration.ofSeconds(10)).build(), () -> {
		});
		releaseLater.get(10, TimeUnit.SECONDS);
		List<Recorded> acquires = this.handler.named(ObservationLockListener.ACQUIRE_OBSERVATION);
		assertThat(acquires).hasSize(2);
		Recorded waited = acquires.get(1);
		assertThat(waited.low("outcome")).isEqualTo("acquired");
		assertThat(waited.durationMillis()).as("the wait for the other holder").isGreaterThanOrEqualTo(250);
	}

	@Test
	void timeoutEndsTheAcquireObservationWithoutAHold() {
		this.other = template(new LocalLockProvider(this.backend));
		Lease holder = this.other.acquire(LockRequest.builder("full").build());
		try {
			assertThat(this.template.tryAcquire(LockRequest.builder("full").waitTime(Duration.ofMillis(100)).build()))
				.isEmpty();
		}
		finally {
			holder.release();
		}
		Recorded timedOut = this.handler.named(ObservationLockListener.ACQUIRE_OBSERVATION).get(1);
		assertThat(timedOut.isStopped()).isTrue();
		assertThat(timedOut.low("outcome")).isEqualTo("timeout");
		assertThat(timedOut.context.getError()).isNull();
		assertThat(this.handler.named(ObservationLockListener.HOLD_OBSERVATION)).hasSize(1);
	}

	@Test
	void backendErrorEndsTheAcquireObservationWithTheError() throws Exception {
		this.fixture = H2TcpFixtureLockProvider.start();
		this.fixture.stopServer();
		this.other = template(this.fixture);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.other.acquire(LockRequest.builder("down").waitTime(Duration.ZERO).build()));
		Recorded failed = this.handler.named(ObservationLockListener.ACQUIRE_OBSERVATION).get(0);
		assertThat(failed.isStopped()).isTrue();
		assertThat(failed.low("provider")).isEqualTo("h2fixture");
		assertThat(failed.low("outcome")).isEqualTo("failed");
		assertThat(failed.context.getError()).isInstanceOf(java.sql.SQLException.class);
	}

	@Test
	void lostLeaseIsAnEventAndTheHoldsOutcome() {
		Lease lease = this.template.acquire(LockRequest.builder("fragile").build());
		this.backend.clear(this.prefix + "fragile", LockType.MUTEX);
		await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
		Recorded hold = this.handler.named(ObservationLockListener.HOLD_OBSERVATION).get(0);
		await().atMost(Duration.ofSeconds(5)).until(() -> !hold.events.isEmpty());
		assertThat(hold.events.get(0).getName()).isEqualTo("distlock.lost");
		lease.release();
		assertThat(hold.isStopped()).isTrue();
		assertThat(hold.low("outcome")).isEqualTo("lost");
	}

	@Test
	void noopRegistryRecordsNothingAndLeavesNoScope() {
		LockTemplate quiet = new LockTemplate(List.of(new LocalLockProvider()), "local", settings(),
				List.of(new ObservationLockListener(ObservationRegistry.NOOP)));
		try {
			quiet.run(LockRequest.of("x"), () -> assertThat(ObservationRegistry.NOOP.getCurrentObservation()).isNull());
		}
		finally {
			quiet.close();
		}
		assertThat(this.handler.recorded).isEmpty();
	}

	private LockSettings settings() {
		return LockSettings.defaults()
			.withKeyPrefix(this.prefix)
			.withWatchdog(Duration.ofMillis(900), Duration.ofMillis(150));
	}

	private LockTemplate template(LockProvider<?> provider) {
		return new LockTemplate(List.of(provider), provider.name(), settings(),
				List.of(new ObservationLockListener(this.registry)));
	}

	/**
	 * Delegates to a real backend and records which observation is current when the core
	 * calls it to acquire.
	 */
	static final class ScopeRecordingProvider extends ForwardingLockProvider {

		private final ObservationRegistry registry;

		final List<Observation.Context> seen = new CopyOnWriteArrayList<>();

		ScopeRecordingProvider(LockProvider<?> delegate, ObservationRegistry registry) {
			super(delegate);
			this.registry = registry;
		}

		@Override
		public AttemptOutcome<HeldLock> tryAcquire(LockAttempt attempt) throws Exception {
			Observation current = this.registry.getCurrentObservation();
			if (current != null) {
				this.seen.add(current.getContext());
			}
			return super.tryAcquire(attempt);
		}

		@Override
		public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
			// run the core's wait loop over this wrapper, so that every attempt passes
			// through tryAcquire above
			return waiter.await(this, attempt);
		}

	}

}
