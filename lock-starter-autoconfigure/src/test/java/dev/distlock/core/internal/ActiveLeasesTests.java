package dev.distlock.core.internal;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A look at the held leases (the live page, the actuator endpoint) shows each lease's
 * owner token and releases a lease by it, without making the leases keep the token: on a
 * backend that never needs it, 100,000 held leases would each carry one more string after
 * one look.
 */
class ActiveLeasesTests {

	private final LocalLockProvider provider = new LocalLockProvider();

	private final LockExecutor executor = new LockExecutor(List.of(this.provider), this.provider.name(),
			LockSettings.defaults(), List.of());

	@AfterEach
	void close() {
		this.executor.close(Duration.ofSeconds(10));
	}

	@Test
	void lookingAtTheLeasesShowsTheOwnerWithoutTheLeaseKeepingIt() throws Exception {
		Lease first = this.executor.acquire(LockRequest.builder("tenant-1").lease(Duration.ofSeconds(30)).build());
		Lease second = this.executor.acquire(LockRequest.builder("tenant-2").lease(Duration.ofSeconds(30)).build());
		List<ManagedLease<?>> leases = List.of((ManagedLease<?>) first, (ManagedLease<?>) second);
		for (ManagedLease<?> lease : leases) {
			assertThat(keptOwner(lease.attempt())).as("owner token of %s before a look", lease.key()).isNull();
		}
		List<LeaseSnapshot> snapshots = this.executor.activeLeases();
		assertThat(snapshots).hasSize(2);
		for (ManagedLease<?> lease : leases) {
			LockAttempt attempt = lease.attempt();
			assertThat(keptOwner(attempt)).as("owner token kept by %s after a look", lease.key()).isNull();
			assertThat(snapshots).anySatisfy((snapshot) -> {
				assertThat(snapshot.key()).isEqualTo(lease.key());
				assertThat(snapshot.owner()).isEqualTo(attempt.appendOwner(new StringBuilder()).toString());
			});
		}
		String owner = snapshots.stream()
			.filter((snapshot) -> snapshot.key().equals(second.key()))
			.findFirst()
			.orElseThrow()
			.owner();
		assertThat(this.executor.forceRelease(owner)).isTrue();
		assertThat(second.isValid()).as("the lease released by its owner token").isFalse();
		assertThat(first.isValid()).as("the other lease").isTrue();
		first.release();
	}

	private static Object keptOwner(LockAttempt attempt) throws ReflectiveOperationException {
		Field owner = LockAttempt.class.getDeclaredField("owner");
		owner.setAccessible(true);
		return owner.get(attempt);
	}

}
