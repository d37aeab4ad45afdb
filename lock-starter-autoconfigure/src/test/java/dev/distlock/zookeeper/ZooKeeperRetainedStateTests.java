package dev.distlock.zookeeper;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a held ZooKeeper lock keeps in the holder's heap: the attempt does not keep the
 * owner token (only the node's data carries it), the node's path is kept in pieces and
 * built again exactly, and the provider's list of held locks loses a lock on release and
 * on a failed renewal.
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

	@Test
	void heldPathIsKeptInPiecesAndBuiltAgainAsTheNodeIsNamed() throws Exception {
		ZooKeeperLockProvider provider = new ZooKeeperLockProvider(client, this.basePath + "/é base");
		try {
			List<String> keys = new ArrayList<>(LockNodePathsTests.awkwardKeys());
			keys.removeIf(String::isEmpty);
			keys.add("");
			int sequence = 0;
			for (String key : keys) {
				for (LockType type : LockType.values()) {
					// the first lock finds no base path: Curator's protected create names
					// it
					LockAttempt attempt = new LockAttempt(key, type, 2, Duration.ofSeconds(5), "p:", sequence++,
							System.nanoTime() + TimeUnit.SECONDS.toNanos(5), null);
					ZooKeeperHeldLock held = provider.acquire(attempt, LockWaiter.tryOnce());
					assertThat(held).isNotNull();
					String lockPath = provider.paths().lockPath(key, type);
					List<String> nodes = admin.getChildren().forPath(lockPath);
					assertThat(nodes).hasSize(1);
					assertThat(held.path()).as("path of %s %s", type, key)
						.isEqualTo(ZKPaths.makePath(lockPath, nodes.get(0)));
					assertThat(held.isPathInPieces()).as("path of %s %s kept in pieces", type, key).isTrue();
					assertThat(provider.renew(held, Duration.ofSeconds(5))).isTrue();
					provider.release(held);
					assertThat(admin.getChildren().forPath(lockPath)).isEmpty();
				}
			}
		}
		finally {
			provider.close();
		}
	}

	@Test
	void pathOfAnotherShapeIsKeptWhole() {
		LockNodePaths paths = new LockNodePaths("/distlock");
		LockAttempt attempt = new LockAttempt("orders:42", LockType.READ, 1, Duration.ofSeconds(5), "owner");
		String lockPath = "/distlock/orders:42/rw/";
		String id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-read-0000000000", true);
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-read-2147483647", true);
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-read-0000000042", true);
		// a wrapped sequence, an id in capitals, another marker, a sequence too long or
		// too large, no protection id, another lock, another base path
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-read--000000001", false);
		assertPieces(paths, attempt, lockPath + "_c_" + id.toUpperCase() + "-read-0000000042", false);
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-write-0000000042", false);
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-read-00000000042", false);
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-read-2147483648", false);
		assertPieces(paths, attempt, lockPath + "_c_" + id + "-read-+000000042", false);
		assertPieces(paths, attempt, lockPath + "read-0000000042", false);
		assertPieces(paths, attempt, "/distlock/orders:43/rw/_c_" + id + "-read-0000000042", false);
		assertPieces(paths, attempt, "/other/orders:42/rw/_c_" + id + "-read-0000000042", false);
		assertPieces(paths, attempt, lockPath + "_c_3f2504e0-4f89-41d3-9a0c-0305e82c33g1-read-0000000042", false);
	}

	private static void assertPieces(LockNodePaths paths, LockAttempt attempt, String path, boolean inPieces) {
		ZooKeeperHeldLock held = ZooKeeperHeldLock.of(paths, attempt, path, 7);
		assertThat(held.path()).isEqualTo(path);
		assertThat(held.isPathInPieces()).as("%s kept in pieces", path).isEqualTo(inPieces);
		assertThat(held.fencingToken()).isEqualTo(7);
		assertThat(held.attempt()).isSameAs(attempt);
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
