package dev.distlock.observability;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.local.LocalLockProvider;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The meters a user sees, as Spring Boot wires them: {@link MetricsLockListener}'s gauges
 * and counters and the timers Micrometer's {@link DefaultMeterObservationHandler} derives
 * from {@link ObservationLockListener}'s observations, on a real {@link LockTemplate}
 * over the local backend (and, for backend failures, over a stopped H2 TCP server):
 * names, tags and values after real acquisitions, timeouts, failures, renewals and a lost
 * lease.
 */
class MetricsLockListenerTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final ObservationRegistry observations = observations(this.registry);

	private final String prefix = "metrics:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final LocalLockProvider backend = new LocalLockProvider();

	private final LockTemplate template = template(this.backend);

	private LockTemplate other;

	private H2TcpFixtureLockProvider fixture;

	@AfterEach
	void close() {
		this.template.close();
		if (this.other != null) {
			this.other.close();
		}
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	@Test
	void acquireAndReleaseRecordAcquireHoldAndActiveLeases() {
		Lease lease = this.template.acquire(LockRequest.builder("order:42")
			.name("orders")
			.waitTime(Duration.ZERO)
			.lease(Duration.ofSeconds(30))
			.build());
		Timer acquire = this.registry.get("distlock.acquire")
			.tags("provider", "local", "type", "mutex", "name", "orders", "outcome", "acquired")
			.timer();
		assertThat(acquire.count()).isEqualTo(1);
		assertThat(activeGauge("orders")).isEqualTo(1.0);
		assertThat(this.registry.find("distlock.hold").timers()).as("no hold is recorded before release").isEmpty();
		lease.release();
		Timer hold = this.registry.get("distlock.hold")
			.tags("provider", "local", "type", "mutex", "name", "orders")
			.timer();
		assertThat(hold.count()).isEqualTo(1);
		assertThat(hold.totalTime(TimeUnit.NANOSECONDS)).isPositive();
		assertThat(activeGauge("orders")).isEqualTo(0.0);
		assertThat(this.registry.find("distlock.leases.lost").counters()).isEmpty();
	}

	@Test
	void metersNeverCarryTheKeyAndUnnamedLocksAreTaggedNone() {
		this.template.run(LockRequest.builder("customer:123456").type(LockType.WRITE).build(), () -> {
		});
		assertThat(this.registry.get("distlock.acquire")
			.tags("provider", "local", "type", "write", "name", "none", "outcome", "acquired")
			.timer()
			.count()).isEqualTo(1);
		for (Meter meter : this.registry.getMeters()) {
			assertThat(meter.getId().getName()).startsWith("distlock.");
			assertThat(meter.getId().getTags()).extracting(Tag::getKey)
				.as("tag keys of %s", meter.getId())
				.isSubsetOf("provider", "type", "name", "outcome", "error");
			assertThat(meter.getId().getTags()).extracting(Tag::getValue)
				.as("no tag of %s holds the key", meter.getId())
				.noneMatch((value) -> value.contains("123456"));
		}
	}

	@Test
	void waitThatRunsOutIsRecordedAsTimeout() {
		this.other = template(new LocalLockProvider(this.backend));
		Lease holder = this.other.acquire(LockRequest.builder("report").name("reports").build());
		try {
			Optional<Lease> lease = this.template
				.tryAcquire(LockRequest.builder("report").name("reports").waitTime(Duration.ofMillis(200)).build());
			assertThat(lease).isEmpty();
		}
		finally {
			holder.release();
		}
		Timer timeout = this.registry.get("distlock.acquire")
			.tags("provider", "local", "type", "mutex", "name", "reports", "outcome", "timeout")
			.timer();
		assertThat(timeout.count()).isEqualTo(1);
		assertThat(timeout.totalTime(TimeUnit.MILLISECONDS)).as("time spent waiting").isGreaterThanOrEqualTo(190);
		// the holder's acquisition was in the other template, whose listener is this
		// test's as well
		assertThat(this.registry.get("distlock.acquire").tag("outcome", "acquired").timer().count()).isEqualTo(1);
	}

	@Test
	void backendErrorIsRecordedAsFailed() throws Exception {
		this.fixture = H2TcpFixtureLockProvider.start();
		this.other = template(this.fixture);
		this.other.run(LockRequest.builder("job").name("jobs").waitTime(Duration.ZERO).build(), () -> {
		});
		this.fixture.stopServer();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(
				() -> this.other.acquire(LockRequest.builder("job").name("jobs").waitTime(Duration.ZERO).build()));
		assertThat(this.registry.get("distlock.acquire")
			.tags("provider", "h2fixture", "type", "mutex", "name", "jobs", "outcome", "acquired")
			.timer()
			.count()).isEqualTo(1);
		assertThat(this.registry.get("distlock.acquire")
			.tags("provider", "h2fixture", "type", "mutex", "name", "jobs", "outcome", "failed")
			.timer()
			.count()).isEqualTo(1);
	}

	@Test
	void renewalsAndALostLeaseAreCounted() {
		Lease lease = this.template.acquire(LockRequest.builder("sync").name("sync").build());
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.registry.find("distlock.renewals")
				.tags("provider", "local", "type", "mutex", "name", "sync")
				.counter()).isNotNull().satisfies((counter) -> assertThat(counter.count()).isGreaterThanOrEqualTo(2)));
		this.backend.clear(this.prefix + "sync", LockType.MUTEX);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.registry.find("distlock.leases.lost")
				.tags("provider", "local", "type", "mutex", "name", "sync")
				.counter()).isNotNull().satisfies((counter) -> assertThat(counter.count()).isEqualTo(1)));
		assertThat(lease.isValid()).isFalse();
		assertThat(activeGauge("sync")).as("a lost lease counts as active until released").isEqualTo(1.0);
		lease.release();
		assertThat(activeGauge("sync")).isEqualTo(0.0);
		assertThat(this.registry.get("distlock.hold").tag("name", "sync").timer().count()).isEqualTo(1);
	}

	@Test
	void reentryIsNotCountedAsAnotherAcquisition() {
		this.template.run(LockRequest.builder("nested").name("nested").build(),
				() -> this.template.run(LockRequest.builder("nested").name("nested").build(), () -> {
					assertThat(activeGauge("nested")).isEqualTo(1.0);
				}));
		assertThat(this.registry.get("distlock.acquire").tag("name", "nested").timer().count()).isEqualTo(1);
		assertThat(this.registry.get("distlock.hold").tag("name", "nested").timer().count()).isEqualTo(1);
		assertThat(activeGauge("nested")).isEqualTo(0.0);
	}

	private double activeGauge(String name) {
		return this.registry.get("distlock.leases.active")
			.tags("provider", "local", "type", "mutex", "name", name)
			.gauge()
			.value();
	}

	private LockTemplate template(LockProvider<?> provider) {
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix(this.prefix)
			.withWatchdog(Duration.ofMillis(900), Duration.ofMillis(150));
		return new LockTemplate(List.of(provider), provider.name(), settings,
				List.of(new MetricsLockListener(this.registry), new ObservationLockListener(this.observations)));
	}

	private static ObservationRegistry observations(MeterRegistry meterRegistry) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
		return registry;
	}

}
