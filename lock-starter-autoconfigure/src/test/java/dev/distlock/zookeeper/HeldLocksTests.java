package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The list of held locks the session handling walks: counted, removed once, and
 * consistent under concurrent grants, releases and walks.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeldLocksTests {

	private static final LockAttempt ATTEMPT = new LockAttempt("key", LockType.MUTEX, 1, Duration.ofSeconds(5),
			"owner");

	private static ZooKeeperHeldLock lock(int i) {
		return new ZooKeeperHeldLock(ATTEMPT, "/distlock/key/mutex/_c_id-lock-" + i, i);
	}

	@Test
	void locksAreCountedWalkedAndRemovedOnceFromAnyPlace() {
		HeldLocks held = new HeldLocks();
		List<ZooKeeperHeldLock> locks = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			locks.add(lock(i));
			held.add(locks.get(i));
		}
		assertThat(held.size()).isEqualTo(5);
		assertThat(held.snapshot()).containsExactlyInAnyOrderElementsOf(locks);
		// the middle, the first added (last in the list) and the last added (first)
		assertThat(held.remove(locks.get(2))).isTrue();
		assertThat(held.remove(locks.get(0))).isTrue();
		assertThat(held.remove(locks.get(4))).isTrue();
		assertThat(held.remove(locks.get(2))).as("removed again").isFalse();
		assertThat(held.remove(lock(9))).as("never added").isFalse();
		assertThat(held.size()).isEqualTo(2);
		assertThat(held.snapshot()).containsExactlyInAnyOrder(locks.get(1), locks.get(3));
		assertThat(held.remove(locks.get(3))).isTrue();
		assertThat(held.remove(locks.get(1))).isTrue();
		assertThat(held.remove(locks.get(1))).isFalse();
		assertThat(held.size()).isZero();
		assertThat(held.snapshot()).isEmpty();
		held.add(locks.get(1));
		assertThat(held.snapshot()).containsExactly(locks.get(1));
	}

	@Test
	void concurrentAddsRemovesAndWalksKeepTheListWhole() throws Exception {
		HeldLocks held = new HeldLocks();
		int threads = 8;
		int perThread = 20_000;
		ExecutorService executor = Executors.newFixedThreadPool(threads + 1);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<List<ZooKeeperHeldLock>>> kept = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int base = t * perThread;
				kept.add(executor.submit(() -> {
					start.await();
					List<ZooKeeperHeldLock> mine = new ArrayList<>();
					for (int i = 0; i < perThread; i++) {
						ZooKeeperHeldLock lock = lock(base + i);
						held.add(lock);
						if (i % 2 == 0) {
							assertThat(held.remove(lock)).isTrue();
							assertThat(held.remove(lock)).isFalse();
						}
						else {
							mine.add(lock);
						}
					}
					return mine;
				}));
			}
			Future<?> walker = executor.submit(() -> {
				start.await();
				for (int i = 0; i < 200; i++) {
					List<ZooKeeperHeldLock> snapshot = held.snapshot();
					assertThat(new HashSet<>(snapshot)).as("no lock twice").hasSameSizeAs(snapshot);
				}
				return null;
			});
			start.countDown();
			Set<ZooKeeperHeldLock> expected = new HashSet<>();
			for (Future<List<ZooKeeperHeldLock>> future : kept) {
				expected.addAll(future.get());
			}
			walker.get();
			assertThat(held.size()).isEqualTo(threads * perThread / 2);
			// compared as sets: AssertJ's containsExactlyInAnyOrder is quadratic, which
			// takes 40 to 65 s of a 60 s timeout at 80,000 locks
			List<ZooKeeperHeldLock> all = held.snapshot();
			assertThat(all).hasSize(expected.size());
			assertThat(new HashSet<>(all)).as("the locks kept").isEqualTo(expected);
			for (ZooKeeperHeldLock lock : expected) {
				assertThat(held.remove(lock)).isTrue();
			}
			assertThat(held.size()).isZero();
			assertThat(held.snapshot()).isEmpty();
		}
		finally {
			executor.shutdownNow();
		}
	}

}
