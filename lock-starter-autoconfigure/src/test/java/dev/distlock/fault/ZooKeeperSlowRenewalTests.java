package dev.distlock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A renewal pass over more leases than one check transaction holds, on a slow link: the
 * transactions go out together, so the pass waits about one round trip, not one per
 * transaction, and ends within its call timeout.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperSlowRenewalTests {

	@Test
	@SuppressWarnings({ "unchecked", "rawtypes" })
	void renewalPassOverManyTransactionsWaitsOneRoundTrip() throws Exception {
		try (TestingServer server = ZooKeeperTestSupport.server();
				TcpProxy proxy = TcpProxy.start(server.getPort());
				CuratorFramework slow = ZooKeeperTestSupport.client("127.0.0.1:" + proxy.port())) {
			ZooKeeperLockProvider zooKeeper = ZooKeeperLockProvider.builder(slow)
				.basePath("/renew-" + UUID.randomUUID().toString().substring(0, 8))
				.callTimeout(Duration.ofMillis(3500))
				.build();
			LockProvider<HeldLock> provider = (LockProvider) zooKeeper;
			try {
				List<HeldLock> held = new ArrayList<>();
				// three check transactions of at most 500
				for (int i = 0; i < 1_200; i++) {
					LockAttempt attempt = new LockAttempt("key-" + i, LockType.MUTEX, 1, Duration.ofSeconds(30),
							UUID.randomUUID().toString());
					held.add(provider.acquire(attempt, LockWaiter.tryOnce()));
				}
				assertThat(held).doesNotContainNull();
				// a round trip takes 2 s now: two in a row would pass the 3.5 s call
				// timeout
				proxy.delay(Duration.ofSeconds(1));
				long start = System.nanoTime();
				RenewalOutcome[] outcomes = provider.renewAll(held, Duration.ofSeconds(30));
				long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				assertThat(outcomes).as("outcomes of a pass that took %d ms", millis)
					.containsOnly(RenewalOutcome.renewed());
				proxy.delay(Duration.ZERO);
			}
			finally {
				zooKeeper.close();
			}
		}
	}

}
