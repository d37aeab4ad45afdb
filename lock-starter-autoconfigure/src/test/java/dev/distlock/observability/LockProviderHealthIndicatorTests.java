package dev.distlock.observability;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockProviderHealthIndicator} through the SPI's default health round trip: UP on
 * the local backend and on a running H2 TCP server, DOWN once that server is stopped, UP
 * while the probe key is held elsewhere, and nothing left behind by the probe.
 */
class LockProviderHealthIndicatorTests {

	private final String prefix = "health:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private H2TcpFixtureLockProvider fixture;

	private LockTemplate template;

	@AfterEach
	void close() {
		if (this.template != null) {
			this.template.close();
		}
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	@Test
	void localProviderIsUp() {
		LocalLockProvider local = new LocalLockProvider();
		this.template = template(local);
		Health health = new LockProviderHealthIndicator(this.template, local).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("provider", "local")
			.containsEntry("default", true)
			.containsKey("responseTime");
		assertThat(local.liveLocks()).as("the probe released its lock").isZero();
	}

	@Test
	void stoppedServerIsDown() throws Exception {
		this.fixture = H2TcpFixtureLockProvider.start();
		this.template = template(this.fixture);
		LockProviderHealthIndicator indicator = new LockProviderHealthIndicator(this.template, this.fixture);
		assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
		assertThat(this.fixture.rows()).as("the probe released its lock").isZero();
		this.fixture.stopServer();
		long start = System.nanoTime();
		Health down = indicator.health();
		assertThat(down.getStatus()).isEqualTo(Status.DOWN);
		assertThat(down.getDetails()).containsEntry("provider", "h2fixture").containsKey("error");
		assertThat(String.valueOf(down.getDetails().get("error"))).contains("Connection refused");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a stopped server is noticed quickly")
			.isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void probeKeyHeldElsewhereStillCountsAsUp() throws Exception {
		this.fixture = H2TcpFixtureLockProvider.start();
		this.template = template(this.fixture);
		// another instance probing at this moment holds the probe key: "busy" is still a
		// full round trip
		Lease probeHeld = this.template.acquire(LockRequest.builder(LockProviderProbe.KEY).build());
		try {
			assertThat(new LockProviderHealthIndicator(this.template, this.fixture).health().getStatus())
				.isEqualTo(Status.UP);
			assertThat(probeHeld.isValid()).isTrue();
		}
		finally {
			probeHeld.release();
		}
	}

	private LockTemplate template(LockProvider<?> provider) {
		return new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults().withKeyPrefix(this.prefix),
				List.of());
	}

}
