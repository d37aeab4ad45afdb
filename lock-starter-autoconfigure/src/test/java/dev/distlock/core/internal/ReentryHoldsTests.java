package dev.distlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockType;
import dev.distlock.local.LocalLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread that holds many leases at once (one lock per tenant or per open order)
 * re-enters each of them, and only those it still holds, also once its holds are kept in
 * an index rather than scanned.
 */
class ReentryHoldsTests {

	private final LocalLockProvider provider = new LocalLockProvider();

	private final LockExecutor executor = new LockExecutor(List.of(this.provider), this.provider.name(),
			LockSettings.defaults(), List.of());

	@AfterEach
	void close() {
		this.executor.close(Duration.ofSeconds(10));
	}

	private Lease acquire(String key, LockType type) {
		Lease lease = this.executor.acquire(LockRequest.builder(key).type(type).lease(Duration.ofSeconds(30)).build());
		assertThat(lease).as("lease of %s", key).isNotNull();
		return lease;
	}

	@Test
	void threadHoldingManyLeasesReentersEachOneItStillHolds() throws Exception {
		int count = 20 * ReentryHolds.INDEX_AT;
		List<Lease> held = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			held.add(acquire("tenant-" + i, LockType.MUTEX));
		}
		for (int i = 0; i < count; i++) {
			Lease again = acquire("tenant-" + i, LockType.MUTEX);
			assertThat(again.fencingToken()).as("re-entered tenant-%d", i).isEqualTo(held.get(i).fencingToken());
			again.release();
			assertThat(held.get(i).isValid()).as("the outer hold of tenant-%d stays", i).isTrue();
		}
		// another lock of the same key is not the held one
		Lease fair = acquire("tenant-0", LockType.FAIR);
		assertThat(fair.fencingToken()).isNotEqualTo(held.get(0).fencingToken());
		fair.release();
		// every other lease is released by another thread: the owner must not re-enter
		// those
		for (int i = 0; i < count; i += 2) {
			Lease lease = held.get(i);
			CompletableFuture.runAsync(lease::release).get();
		}
		for (int i = 0; i < count; i++) {
			Lease again = acquire("tenant-" + i, LockType.MUTEX);
			if (i % 2 == 0) {
				assertThat(again.fencingToken()).as("tenant-%d acquired anew", i)
					.isGreaterThan(held.get(i).fencingToken());
				held.set(i, again);
			}
			else {
				assertThat(again.fencingToken()).as("tenant-%d re-entered", i).isEqualTo(held.get(i).fencingToken());
				again.release();
			}
		}
		held.forEach(Lease::release);
		assertThat(this.provider.liveLocks()).as("locks held after every release").isZero();
		// back to a few holds: re-entry still works
		Lease one = acquire("after", LockType.MUTEX);
		Lease nested = acquire("after", LockType.MUTEX);
		assertThat(nested.fencingToken()).isEqualTo(one.fencingToken());
		nested.release();
		one.release();
		assertThat(this.provider.liveLocks()).isZero();
	}

}
