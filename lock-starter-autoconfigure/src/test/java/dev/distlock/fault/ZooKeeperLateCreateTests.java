package dev.distlock.fault;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A queueing transaction cut off at its deadline on a slow network still reaches the
 * server and creates its node after the caller gave up. Nobody holds that node, yet it
 * would sit at the head of the queue until the session ends; the provider finds it by its
 * protection id and deletes it.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperLateCreateTests {

	@Test
	void nodeCreatedAfterItsCallerGaveUpIsDeleted() throws Exception {
		String basePath = "/late-" + UUID.randomUUID().toString().substring(0, 8);
		try (TestingServer server = ZooKeeperTestSupport.server();
				TcpProxy proxy = TcpProxy.start(server.getPort());
				CuratorFramework admin = ZooKeeperTestSupport.client(server.getConnectString());
				CuratorFramework slow = ZooKeeperTestSupport.client("127.0.0.1:" + proxy.port())) {
			ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(slow)
				.basePath(basePath)
				.callTimeout(Duration.ofMillis(300))
				.build();
			LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
					LockSettings.defaults().withKeyPrefix(""), List.of());
			try {
				LockRequest request = LockRequest.builder("k")
					.type(LockType.MUTEX)
					.lease(Duration.ofSeconds(30))
					.waitTime(Duration.ZERO)
					.build();
				// the lock node exists from now on: the next acquisition queues in one
				// transaction
				template.tryAcquire(request).orElseThrow().release();
				String lockPath = provider.paths().lockPath("k", LockType.MUTEX);
				assertThat(admin.getChildren().forPath(lockPath)).isEmpty();
				// every chunk takes 1.5 s each way, the call 0.3 s at most
				proxy.delay(Duration.ofMillis(1500));
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> template.tryAcquire(request));
				boolean appeared = false;
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
				List<String> nodes;
				while (true) {
					nodes = children(admin, lockPath);
					appeared |= !nodes.isEmpty();
					if ((appeared && nodes.isEmpty()) || System.nanoTime() - deadline > 0) {
						break;
					}
					Thread.sleep(5);
				}
				assertThat(appeared).as("the transaction reached the server after its caller gave up").isTrue();
				assertThat(nodes).as("nodes left in the queue 15 s later (the session lives on)").isEmpty();
				proxy.delay(Duration.ZERO);
				// chunks still in the proxy keep their delay: wait past them
				assertThat(template.tryAcquire(LockRequest.builder("k").waitTime(Duration.ofSeconds(5)).build()))
					.as("the lock is free again")
					.hasValueSatisfying((lease) -> lease.release());
			}
			finally {
				template.close();
			}
		}
	}

	private static List<String> children(CuratorFramework admin, String path) throws Exception {
		try {
			return admin.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
	}

}
