package dev.distlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.callback.BusyCallback;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.local.LocalStatesAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Idle local places and in-JVM lock states are kept for the key's next acquisition, and
 * swept in bulk so that memory stays bounded however many distinct keys are locked.
 */
class LocalPlacesTests {

	private final LocalLockProvider provider = new LocalLockProvider();

	private final LockExecutor executor = new LockExecutor(List.of(this.provider), this.provider.name(),
			LockSettings.defaults(), List.of());

	@AfterEach
	void close() {
		this.executor.close(Duration.ofSeconds(10));
	}

	private void run(String key) throws Throwable {
		this.executor.execute(LockRequest.of(key), (lease) -> null, BusyCallback.throwing(), null);
	}

	private Lease acquire(LockRequest request) {
		Lease lease = this.executor.acquire(request);
		assertThat(lease).as("lease of %s", request.key()).isNotNull();
		return lease;
	}

	@Test
	void aHotKeyKeepsOnePlaceAndOneState() throws Throwable {
		for (int i = 0; i < 1000; i++) {
			run("hot");
		}
		assertThat(this.executor.queue().retained()).as("places kept").isEqualTo(1);
		assertThat(this.executor.queue().size()).as("places in use").isZero();
		assertThat(LocalStatesAccess.retained(this.provider)).as("states kept").isEqualTo(1);
		assertThat(this.provider.liveLocks()).as("states in use").isZero();
	}

	@Test
	void manyDistinctKeysLeaveABoundedNumberOfIdlePlaces() {
		int keys = 20_000;
		for (int i = 0; i < keys; i++) {
			Lease lease = acquire(LockRequest.builder("key-" + i).lease(Duration.ofSeconds(30)).build());
			lease.release();
		}
		int bound = 2 * LocalQueue.SWEEP_SLACK + 1;
		assertThat(this.executor.queue().retained()).as("places kept after %d keys", keys).isLessThanOrEqualTo(bound);
		assertThat(LocalStatesAccess.retained(this.provider)).as("states kept after %d keys", keys)
			.isLessThanOrEqualTo(bound);
		assertThat(this.executor.queue().size()).isZero();
		assertThat(this.provider.liveLocks()).isZero();
	}

	/**
	 * Past the slack, a released key's place and state go at once: the maps stay at the
	 * slack (the most recent keys kept for their next lock) instead of growing to a mark
	 * and being swept in bulk, which stalls the callers of the time.
	 */
	@Test
	void pastTheSlackAReleasedKeyLeavesAtOnceWithoutABulkSweep() {
		int slack = LocalQueue.SWEEP_SLACK;
		for (int i = 0; i < 5 * slack; i++) {
			Lease lease = acquire(LockRequest.builder("key-" + i).lease(Duration.ofSeconds(30)).build());
			lease.release();
			if (i >= slack) {
				assertThat(this.executor.queue().retained()).as("places kept after key %d", i)
					.isBetween(slack - 1, slack + 1);
				assertThat(LocalStatesAccess.retained(this.provider)).as("states kept after key %d", i)
					.isBetween(slack - 1, slack + 1);
			}
		}
	}

	/**
	 * A map found crowded is counted again only now and then; once it has shrunk back
	 * under the slack, a hot key keeps its place and state again.
	 */
	@Test
	void aMapThatShrankKeepsAHotKeysPlaceAgain() throws Throwable {
		int keys = 2 * LocalQueue.SWEEP_SLACK;
		List<Lease> held = new ArrayList<>();
		for (int i = 0; i < keys; i++) {
			held.add(acquire(LockRequest.builder("key-" + i).lease(Duration.ofSeconds(30)).build()));
		}
		// every release finds the maps crowded: the places and states leave with their
		// holders
		held.forEach(Lease::release);
		int places = this.executor.queue().retained();
		int states = LocalStatesAccess.retained(this.provider);
		assertThat(places).as("places kept after the releases").isLessThanOrEqualTo(LocalQueue.SWEEP_SLACK + 1);
		assertThat(states).as("states kept after the releases").isLessThanOrEqualTo(LocalQueue.SWEEP_SLACK + 1);
		// a recount comes about once in 64 calls: after 2,000 the chance that none
		// came is below 1e-13
		for (int i = 0; i < 2000; i++) {
			run("hot");
		}
		// the releases stop dropping at the recount that finds the map at the slack or
		// under it; about once in 64 that recount finds it exactly at the slack, and
		// then the map has no room for the hot key and stays as it is
		assertThat(this.executor.queue().retained()).as("places kept: the others and the hot key's (of %d)", places)
			.isEqualTo(Math.min(places + 1, LocalQueue.SWEEP_SLACK));
		assertThat(LocalStatesAccess.retained(this.provider))
			.as("states kept: the others and the hot key's (of %d)", states)
			.isEqualTo(Math.min(states + 1, LocalStatesAccess.slack()));
		assertThat(this.executor.queue().size()).as("places in use").isZero();
		assertThat(this.provider.liveLocks()).as("states in use").isZero();
	}

	@Test
	void heldKeysSurviveASweep() throws Throwable {
		Lease held = acquire(LockRequest.builder("held").lease(Duration.ofSeconds(30)).build());
		for (int i = 0; i < 5000; i++) {
			run("other-" + i);
		}
		assertThat(held.isValid()).isTrue();
		assertThat(fromAnotherThread()).as("the held key is still locked after sweeps, for another thread").isFalse();
		held.release();
		assertThat(fromAnotherThread()).as("free after its release").isTrue();
	}

	private boolean fromAnotherThread() throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			Lease lease = this.executor.acquire(LockRequest.builder("held").waitTime(Duration.ZERO).build());
			if (lease != null) {
				lease.release();
			}
			return lease != null;
		}).get(10, TimeUnit.SECONDS);
	}

}
