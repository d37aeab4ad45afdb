package dev.distlock.zookeeper;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batched renewal on ZooKeeper: the watchdog's batch of held leases is checked in one
 * transaction, not one call per lease, and a lease whose node is gone is still reported
 * not held while the others are renewed.
 */
class ZooKeeperBatchRenewalTests {

	private static TestingServer server;

	private static CuratorFramework client;

	private static CuratorFramework admin;

	private final String basePath = "/b-" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeAll
	static void start() throws Exception {
		server = ZooKeeperTestSupport.server();
		client = ZooKeeperTestSupport.client(server.getConnectString());
		admin = ZooKeeperTestSupport.client(server.getConnectString());
	}

	@AfterAll
	static void stop() throws Exception {
		admin.close();
		client.close();
		server.close();
	}

	@Test
	void manyLeasesAreRenewedInOneRoundTripAndALostNodeIsReportedNotHeld() throws Exception {
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
		try {
			List<ZooKeeperHeldLock> held = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				LockType type = (i % 2 == 0) ? LockType.MUTEX : LockType.READ;
				held.add(provider.acquire(attempt("key-" + i, type), LockWaiter.tryOnce()));
			}
			ZooKeeperHeldLock released = held.get(7);
			provider.release(released);
			ZooKeeperHeldLock deleted = held.get(20);
			admin.delete().forPath(deleted.path());

			long packets = packets();
			RenewalOutcome[] outcomes = provider.renewAll(held, Duration.ofSeconds(30));
			long used = packets() - packets;

			for (int i = 0; i < held.size(); i++) {
				RenewalOutcome expected = (i == 7 || i == 20) ? RenewalOutcome.notHeld() : RenewalOutcome.renewed();
				assertThat(outcomes[i]).as("lease %d", i).isEqualTo(expected);
			}
			// one transaction for all and one more after the node found missing, against
			// 48 one by one; the clients' pings may fall in between
			assertThat(used).as("requests the server received for renewing 48 leases").isLessThan(10);
			assertThat(provider.renew(deleted, Duration.ofSeconds(30))).as("the lost lease stays lost").isFalse();
			assertThat(provider.renew(held.get(0), Duration.ofSeconds(30))).isTrue();
			for (ZooKeeperHeldLock lock : held) {
				provider.release(lock);
			}
			assertThat(ZooKeeperTestSupport.lockNodes(admin, this.basePath, "")).isEmpty();
		}
		finally {
			provider.close();
		}
	}

	/**
	 * A client with a namespace: renewals, the read after a failed check and releases go
	 * to the nodes under the namespace (the provider builds those paths itself for the
	 * calls it makes on the ZooKeeper handle).
	 */
	@Test
	void underANamespaceLeasesAreRenewedAndALostNodeIsReportedNotHeld() throws Exception {
		String namespace = "ns-" + UUID.randomUUID().toString().substring(0, 8) + "/inner";
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client.usingNamespace(namespace), this.basePath);
		try {
			List<ZooKeeperHeldLock> held = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				held.add(provider.acquire(attempt("ns-key-" + i, LockType.MUTEX), LockWaiter.tryOnce()));
			}
			for (ZooKeeperHeldLock lock : held) {
				assertThat(admin.checkExists().forPath("/" + namespace + lock.path())).as("node of %s", lock.path())
					.isNotNull();
			}
			assertThat(provider.renewAll(held, Duration.ofSeconds(30))).containsOnly(RenewalOutcome.renewed());
			admin.delete().forPath("/" + namespace + held.get(3).path());

			RenewalOutcome[] outcomes = provider.renewAll(held, Duration.ofSeconds(30));

			for (int i = 0; i < held.size(); i++) {
				assertThat(outcomes[i]).as("lease %d", i)
					.isEqualTo((i == 3) ? RenewalOutcome.notHeld() : RenewalOutcome.renewed());
			}
			for (ZooKeeperHeldLock lock : held) {
				provider.release(lock);
			}
			assertThat(ZooKeeperTestSupport.lockNodes(admin, "/" + namespace + this.basePath, "")).isEmpty();
		}
		finally {
			provider.close();
		}
	}

	@Test
	void leasesThatAreOnlyRenewedKeepNoThreadOfTheProviderAlive() throws Exception {
		Set<Thread> before = Thread.getAllStackTraces().keySet();
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
		try {
			List<ZooKeeperHeldLock> held = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				held.add(provider.acquire(attempt("quiet-" + i, LockType.MUTEX), LockWaiter.tryOnce()));
			}
			// the acquisitions' calls are bounded by a task on distlock's timer, not by a
			// thread of the provider
			assertThat(providerThreads(before)).as("threads of the provider after its acquisitions").isEmpty();
			// renewing as the watchdog does, a few times a second
			for (int i = 0; i < 4; i++) {
				assertThat(provider.renewAll(held, Duration.ofSeconds(30))).containsOnly(RenewalOutcome.renewed());
				Thread.sleep(250);
				assertThat(providerThreads(before)).as("threads of a provider that only renews its leases").isEmpty();
			}
			assertThat(provider.renewAll(held, Duration.ofSeconds(30))).containsOnly(RenewalOutcome.renewed());
			assertThat(providerThreads(before)).as("threads after one more renewal").isEmpty();
			for (ZooKeeperHeldLock lock : held) {
				provider.release(lock);
			}
			assertThat(ZooKeeperTestSupport.lockNodes(admin, this.basePath, "")).isEmpty();
		}
		finally {
			provider.close();
		}
	}

	private static List<String> providerThreads(Set<Thread> before) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> !before.contains(thread) && thread.isAlive()
					&& thread.getName().startsWith("distlock-zookeeper"))
			.map(Thread::getName)
			.toList();
	}

	private static LockAttempt attempt(String key, LockType type) {
		return new LockAttempt(key, type, 1, Duration.ofSeconds(5), UUID.randomUUID().toString());
	}

	/** Requests the in-process server received so far. */
	private static long packets() throws Exception {
		MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
		long total = 0;
		for (ObjectName name : beans.queryNames(new ObjectName("org.apache.ZooKeeperService:name0=*"), null)) {
			if (name.getKeyPropertyList().size() == 1) {
				total += ((Number) beans.getAttribute(name, "PacketsReceived")).longValue();
			}
		}
		return total;
	}

}
