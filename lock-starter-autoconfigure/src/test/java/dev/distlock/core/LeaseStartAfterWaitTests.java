package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fixed lease counts from the request that granted the lock, not from when waiting
 * began: a waiter that waited longer than its lease still holds a valid lease when it
 * gets the lock.
 */
class LeaseStartAfterWaitTests {

	@Test
	void fixedLeaseOfALockGrantedAfterALongWaitIsValidWhenGranted() throws Exception {
		LocalLockProvider backend = new LocalLockProvider();
		try (LockTemplate holder = template(new LocalLockProvider(backend));
				LockTemplate waiter = template(new LocalLockProvider(backend))) {
			Lease held = holder.acquire(LockRequest.of("k"));
			CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> waiter.acquire(
					LockRequest.builder("k").lease(Duration.ofMillis(400)).waitTime(Duration.ofSeconds(10)).build()));
			Thread.sleep(900);
			held.release();
			Lease lease = next.get(10, TimeUnit.SECONDS);
			Instant granted = Instant.now();
			assertThat(lease.isValid()).as("a lease granted after a wait longer than itself must start valid").isTrue();
			assertThat(lease.expiresAt()).isAfter(granted.plusMillis(200));
			lease.release();
		}
	}

	private static LockTemplate template(LockProvider<?> provider) {
		return new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults(), List.of());
	}

}
