package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prints one thread's uncontended acquire+release pairs per second through
 * {@link LockTemplate} and through Curator's own {@link InterProcessMutex}, in
 * alternating short batches on the same in-process server. A measurement for the record,
 * not a timed assertion: it asserts only that every pair completed and nothing was left
 * behind.
 */
class ZooKeeperThroughputTests {

	private static final int WARM_UP = 200;

	private static final int PAIRS = 2000;

	private static final int BATCH = 50;

	@Test
	void printsPairsPerSecondOfDistlockAndOfRawCurator() throws Exception {
		try (TestingServer server = ZooKeeperTestSupport.server();
				CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString())) {
			ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client);
			try (LockTemplate template = new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults(),
					List.of())) {
				LockRequest request = LockRequest.builder("bench")
					.lease(Duration.ofSeconds(30))
					.waitTime(Duration.ZERO)
					.build();
				InterProcessMutex mutex = new InterProcessMutex(client, "/raw/bench");
				distlock(template, request, WARM_UP);
				raw(mutex, WARM_UP);
				// short alternating batches, so that both see the same load from whatever
				// else runs on the machine
				long distlockNanos = 0;
				long rawNanos = 0;
				for (int batch = 0; batch < PAIRS / BATCH; batch++) {
					distlockNanos += distlock(template, request, BATCH);
					rawNanos += raw(mutex, BATCH);
				}
				double distlock = PAIRS / (distlockNanos / 1e9);
				double raw = PAIRS / (rawNanos / 1e9);
				System.out.printf(
						"ZooKeeper, one thread, uncontended: distlock LockTemplate %.0f pairs/s, "
								+ "Curator InterProcessMutex %.0f pairs/s (ratio %.2f)%n",
						distlock, raw, distlock / raw);
				assertThat(ZooKeeperTestSupport.lockNodes(client, ZooKeeperLockProvider.DEFAULT_BASE_PATH, ""))
					.isEmpty();
				assertThat(client.getChildren().forPath("/raw/bench")).isEmpty();
			}
			finally {
				provider.close();
			}
		}
	}

	private static long distlock(LockTemplate template, LockRequest request, int pairs) {
		long start = System.nanoTime();
		for (int i = 0; i < pairs; i++) {
			Lease lease = template.acquire(request);
			lease.release();
		}
		return System.nanoTime() - start;
	}

	private static long raw(InterProcessMutex mutex, int pairs) throws Exception {
		long start = System.nanoTime();
		for (int i = 0; i < pairs; i++) {
			assertThat(mutex.acquire(1, TimeUnit.SECONDS)).isTrue();
			mutex.release();
		}
		return System.nanoTime() - start;
	}

}
