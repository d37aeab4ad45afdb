package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.local.LocalLockProvider;
import dev.distlock.local.LocalStatesAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Idle local places and in-JVM lock states are kept for the key's next acquisition, and swept in bulk so that memory
 * stays bounded however many distinct keys are locked.
 */
class LocalPlacesTests {

	private final LocalLockProvider provider = new LocalLockProvider();

	private final LockTemplate template = new LockTemplate(this.provider);

	@AfterEach
	void close() {
		this.template.close();
	}

	@Test
	void aHotKeyKeepsOnePlaceAndOneState() {
		for (int i = 0; i < 1000; i++) {
			this.template.run("hot", () -> {
			});
		}
		assertThat(this.template.executor().queue().retained()).as("places kept").isEqualTo(1);
		assertThat(this.template.executor().queue().size()).as("places in use").isZero();
		assertThat(LocalStatesAccess.retained(this.provider)).as("states kept").isEqualTo(1);
		assertThat(this.provider.liveLocks()).as("states in use").isZero();
	}

	@Test
	void manyDistinctKeysLeaveABoundedNumberOfIdlePlaces() {
		int keys = 20_000;
		for (int i = 0; i < keys; i++) {
			Lease lease = this.template.acquire(LockRequest.builder("key-" + i).lease(Duration.ofSeconds(30)).build());
			lease.release();
		}
		int bound = 2 * LocalQueue.SWEEP_SLACK + 1;
		assertThat(this.template.executor().queue().retained()).as("places kept after %d keys", keys)
			.isLessThanOrEqualTo(bound);
		assertThat(LocalStatesAccess.retained(this.provider)).as("states kept after %d keys", keys)
			.isLessThanOrEqualTo(bound);
		assertThat(this.template.executor().queue().size()).isZero();
		assertThat(this.provider.liveLocks()).isZero();
	}

	@Test
	void heldKeysSurviveASweep() throws Exception {
		Lease held = this.template.acquire(LockRequest.builder("held").lease(Duration.ofSeconds(30)).build());
		for (int i = 0; i < 5000; i++) {
			this.template.run("other-" + i, () -> {
			});
		}
		assertThat(held.isValid()).isTrue();
		assertThat(fromAnotherThread()).as("the held key is still locked after sweeps, for another thread").isFalse();
		held.release();
		assertThat(fromAnotherThread()).as("free after its release").isTrue();
	}

	private boolean fromAnotherThread() throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			Optional<Lease> lease = this.template.tryAcquire(LockRequest.builder("held").waitTime(Duration.ZERO).build());
			lease.ifPresent(Lease::release);
			return lease.isPresent();
		}).get(10, TimeUnit.SECONDS);
	}

}
