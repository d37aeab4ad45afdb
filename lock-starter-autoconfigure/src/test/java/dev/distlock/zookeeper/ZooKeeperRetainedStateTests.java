package dev.distlock.zookeeper;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a held ZooKeeper lock keeps in the holder's heap: the attempt does not keep the
 * owner token (only the node's data carries it), and the provider's list of held locks
 * loses a lock on release and on a failed renewal.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperRetainedStateTests {

	private static TestingServer server;

	private static CuratorFramework client;

	private static CuratorFramework admin;

	private final String basePath = "/r-" + UUID.randomUUID().toString().substring(0, 8);

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

	/** An attempt as the core makes it: an owner prefix and a sequence. */
	private static LockAttempt attempt(String key, String ownerPrefix, long sequence) {
		return new LockAttempt(key, LockType.MUTEX, 1, Duration.ofSeconds(5), ownerPrefix, sequence,
				System.nanoTime() + TimeUnit.SECONDS.toNanos(5), null);
	}

	@Test
	void heldLockDoesNotKeepTheOwnerTokenWhileItsNodeCarriesOwnerLeaseAndKey() throws Exception {
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
		try {
			String prefix = UUID.randomUUID() + ":";
			LockAttempt attempt = attempt("orders/42 é", prefix, 7);
			ZooKeeperHeldLock held = provider.acquire(attempt, LockWaiter.tryOnce());
			assertThat(held).isNotNull();
			assertThat(data(held)).isEqualTo("owner=" + prefix + "7\nlease=PT5S\nkey=orders/42 é");
			assertThat(keptOwner(attempt)).as("owner token kept by the held attempt").isNull();
			assertThat(provider.renew(held, Duration.ofSeconds(9))).isTrue();
			assertThat(data(held)).isEqualTo("owner=" + prefix + "7\nlease=PT9S\nkey=orders/42 é");
			assertThat(keptOwner(attempt)).as("owner token kept after a renewal").isNull();
			assertThat(attempt.owner()).isEqualTo(prefix + "7");
			provider.release(held);
			assertThat(admin.checkExists().forPath(held.path())).isNull();
		}
		finally {
			provider.close();
		}
	}

	@Test
	void heldLocksAreForgottenOnReleaseAndOnAFailedRenewal() throws Exception {
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath);
		try {
			ZooKeeperHeldLock a = provider.acquire(attempt("a", "p:", 1), LockWaiter.tryOnce());
			ZooKeeperHeldLock b = provider.acquire(attempt("b", "p:", 2), LockWaiter.tryOnce());
			ZooKeeperHeldLock c = provider.acquire(attempt("c", "p:", 3), LockWaiter.tryOnce());
			ZooKeeperHeldLock d = provider.acquire(attempt("d", "p:", 4), LockWaiter.tryOnce());
			assertThat(heldCount(provider)).isEqualTo(4);
			provider.release(b);
			provider.release(b);
			assertThat(heldCount(provider)).as("after releasing one lock twice").isEqualTo(3);
			admin.delete().forPath(c.path());
			assertThat(provider.renew(c, Duration.ofSeconds(5))).isFalse();
			assertThat(heldCount(provider)).as("after a renewal found the node gone").isEqualTo(2);
			admin.delete().forPath(d.path());
			RenewalOutcome[] outcomes = provider.renewAll(List.of(a, d), Duration.ofSeconds(5));
			assertThat(outcomes[0].isRenewed()).isTrue();
			assertThat(outcomes[1].isRenewed()).isFalse();
			assertThat(outcomes[1].failure()).isNull();
			assertThat(heldCount(provider)).as("after a batch found a node gone").isEqualTo(1);
			provider.release(a);
			assertThat(heldCount(provider)).isZero();
		}
		finally {
			provider.close();
		}
	}

	private static String data(ZooKeeperHeldLock held) throws Exception {
		return new String(admin.getData().forPath(held.path()), StandardCharsets.UTF_8);
	}

	private static Object keptOwner(LockAttempt attempt) throws Exception {
		Field owner = LockAttempt.class.getDeclaredField("owner");
		owner.setAccessible(true);
		return owner.get(attempt);
	}

	private static int heldCount(ZooKeeperLockProvider provider) throws Exception {
		Field held = ZooKeeperLockProvider.class.getDeclaredField("held");
		held.setAccessible(true);
		return ((HeldLocks) held.get(provider)).size();
	}

}
