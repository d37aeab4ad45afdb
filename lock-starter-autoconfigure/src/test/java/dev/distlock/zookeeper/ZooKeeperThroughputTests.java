package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseRenewer;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prints one thread's uncontended acquire+release pairs per second through {@link LockTemplate} and through Curator's
 * own {@link InterProcessMutex}, alternating rounds on the same in-process server. A measurement for the record, not
 * a timed assertion: it asserts only that every pair completed and nothing was left behind.
 */
class ZooKeeperThroughputTests {

	private static final int WARM_UP = 200;

	private static final int PAIRS = 600;

	@Test
	void printsPairsPerSecondOfDistlockAndOfRawCurator() throws Exception {
		try (TestingServer server = ZooKeeperTestSupport.server();
				CuratorFramework client = ZooKeeperTestSupport.client(server.getConnectString())) {
			ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client);
			try (LockTemplate template = new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults(),
						new LeaseRenewer(1), List.of())) {
			LockRequest request = LockRequest.builder("bench").lease(Duration.ofSeconds(30)).waitTime(Duration.ZERO)
				.build();
			InterProcessMutex mutex = new InterProcessMutex(client, "/raw/bench");
			distlock(template, request, WARM_UP);
			raw(mutex, WARM_UP);
			double distlock = 0;
			double raw = 0;
			for (int round = 0; round < 2; round++) {
				distlock += distlock(template, request, PAIRS);
				raw += raw(mutex, PAIRS);
			}
			System.out.printf("ZooKeeper, one thread, uncontended: distlock LockTemplate %.0f pairs/s, "
					+ "Curator InterProcessMutex %.0f pairs/s (ratio %.2f)%n", distlock / 2, raw / 2, distlock / raw);
			assertThat(ZooKeeperTestSupport.lockNodes(client, ZooKeeperLockProvider.DEFAULT_BASE_PATH, "")).isEmpty();
			assertThat(client.getChildren().forPath("/raw/bench")).isEmpty();
			}
			finally {
				provider.close();
			}
		}
	}

	private static double distlock(LockTemplate template, LockRequest request, int pairs) {
		long start = System.nanoTime();
		for (int i = 0; i < pairs; i++) {
			Lease lease = template.acquire(request);
			lease.release();
		}
		return pairs / ((System.nanoTime() - start) / 1e9);
	}

	private static double raw(InterProcessMutex mutex, int pairs) throws Exception {
		long start = System.nanoTime();
		for (int i = 0; i < pairs; i++) {
			assertThat(mutex.acquire(1, TimeUnit.SECONDS)).isTrue();
			mutex.release();
		}
		return pairs / ((System.nanoTime() - start) / 1e9);
	}

}
