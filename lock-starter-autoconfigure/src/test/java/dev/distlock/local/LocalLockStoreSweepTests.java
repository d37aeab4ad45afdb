package dev.distlock.local;

import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sweep of unused states over many keys: a release that finds a sweep running goes on
 * instead of waiting for it.
 */
class LocalLockStoreSweepTests {

	@Test
	void aReleaseThatFindsASweepRunningDoesNotWaitForIt() throws Exception {
		LocalLockStore store = new LocalLockStore();
		LocalLockState first = store.state("key-0", LockType.MUTEX);
		for (int i = 1; i <= 2 * LocalLockStore.SWEEP_SLACK; i++) {
			store.state("key-" + i, LockType.MUTEX);
		}
		LocalLockState second = store.state("key-1", LockType.MUTEX);
		LocalLockState last = store.state("key-last", LockType.MUTEX);
		Thread sweeper;
		Thread release;
		synchronized (first) {
			// the sweep stops at the state this thread holds, with the map past its mark
			sweeper = new Thread(() -> store.dropIfUnused("key-1", LockType.MUTEX, second), "sweeper");
			sweeper.start();
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (sweeper.getState() != Thread.State.BLOCKED && System.nanoTime() < until) {
				Thread.onSpinWait();
			}
			assertThat(sweeper.getState()).as("the sweep waits for the state this thread holds")
				.isEqualTo(Thread.State.BLOCKED);
			// keys keep coming while the sweep runs: the map is past its mark again
			for (int i = 0; i <= 2 * LocalLockStore.SWEEP_SLACK; i++) {
				store.state("later-" + i, LockType.MUTEX);
			}
			release = new Thread(() -> store.dropIfUnused("key-last", LockType.MUTEX, last), "release");
			release.start();
			release.join(TimeUnit.SECONDS.toMillis(10));
			assertThat(release.isAlive()).as("a second release while the sweep runs, in state %s", release.getState())
				.isFalse();
			assertThat(sweeper.isAlive()).isTrue();
		}
		sweeper.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(sweeper.isAlive()).isFalse();
		assertThat(store.retained()).as("the sweep dropped unused states").isLessThan(4 * LocalLockStore.SWEEP_SLACK);
	}

}
