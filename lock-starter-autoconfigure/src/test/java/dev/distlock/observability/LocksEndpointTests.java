package dev.distlock.observability;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.observability.LocksEndpoint.LocksDescriptor;
import dev.distlock.observability.LocksEndpoint.ProviderDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LocksEndpoint} over a real template with two backends: the local one and an H2
 * TCP server that is stopped.
 */
class LocksEndpointTests {

	private final String prefix = "endpoint:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final LocalLockProvider local = new LocalLockProvider();

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
	void showsHeldLeasesAndBackendStatus() throws Exception {
		this.fixture = H2TcpFixtureLockProvider.start();
		this.template = template(this.local, this.fixture);
		LocksEndpoint endpoint = new LocksEndpoint(this.template);
		Instant before = Instant.now();
		Lease lease = this.template.acquire(LockRequest.builder("order:1").name("orders").type(LockType.WRITE).build());
		LocksDescriptor held = endpoint.locks();
		assertThat(held.leases()).hasSize(1);
		LeaseSnapshot info = held.leases().get(0);
		assertThat(info.key()).isEqualTo("order:1");
		assertThat(info.name()).isEqualTo("orders");
		assertThat(info.type()).isEqualTo(LockType.WRITE);
		assertThat(info.provider()).isEqualTo("local");
		assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(info.holderThread()).isEqualTo(Thread.currentThread().getName());
		assertThat(info.acquiredAt()).isBetween(before, Instant.now());
		assertThat(info.expiresAt()).isAfter(info.acquiredAt());
		assertThat(info.valid()).isTrue();
		assertThat(held.providers()).containsOnlyKeys("local", "h2fixture");
		assertThat(held.providers().get("local"))
			.isEqualTo(new ProviderDescriptor(true, java.util.EnumSet.allOf(LockType.class), "UP", null));
		assertThat(held.providers().get("h2fixture").status()).isEqualTo("UP");
		this.fixture.stopServer();
		ProviderDescriptor down = endpoint.locks().providers().get("h2fixture");
		assertThat(down.status()).isEqualTo("DOWN");
		assertThat(down.defaultProvider()).isFalse();
		assertThat(down.error()).contains("Connection refused");
		lease.release();
		assertThat(endpoint.locks().leases()).isEmpty();
	}

	@Test
	void releaseFreesAStuckLeaseByItsOwnerToken() {
		this.template = template(this.local);
		LocksEndpoint endpoint = new LocksEndpoint(this.template);
		Lease stuck = this.template.acquire(LockRequest.builder("stuck").build());
		String owner = endpoint.locks().leases().get(0).owner();
		assertThat(endpoint.release("no-such-owner").released()).isFalse();
		assertThat(endpoint.release(owner).released()).isTrue();
		assertThat(stuck.isValid()).isFalse();
		assertThat(endpoint.locks().leases()).isEmpty();
		assertThat(this.template.tryAcquire(LockRequest.builder("stuck").waitTime(Duration.ZERO).build()))
			.as("the key is free again")
			.hasValueSatisfying(Lease::release);
		stuck.release();
	}

	private LockTemplate template(LockProvider<?>... providers) {
		return new LockTemplate(List.of(providers), providers[0].name(),
				LockSettings.defaults().withKeyPrefix(this.prefix), List.of());
	}

}
