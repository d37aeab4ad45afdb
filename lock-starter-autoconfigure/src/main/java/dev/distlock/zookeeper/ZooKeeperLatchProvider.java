package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.LatchWaiter;
import dev.distlock.core.support.WakeUpSignal;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * Countdown latches on ZooKeeper, named {@code zookeeper}. A latch is a persistent node
 * with a TTL, {@code <base>/<encoded name>/latch}, whose data is the count; a count-down
 * is a version-checked {@code setData} (a compare-and-set, retried when another
 * count-down came first), and the last one deletes the node. Waiters watch the node, so a
 * count-down or the deletion wakes them, and re-check at least every {@link #RECHECK}.
 * <p>
 * <b>Expiry</b> is ZooKeeper's TTL: the servers delete a latch that was not modified (set
 * or counted down) for its expiry, at their next container check
 * ({@code znode.container.checkIntervalMs}, 60 s by default). TTL nodes need
 * {@code zookeeper.extendedTypesEnabled=true} on every server; without it setting a count
 * fails with a {@link LockConfigurationException} that says so.
 *
 * @since 0.2.0
 */
public final class ZooKeeperLatchProvider implements LatchProvider {

	/** Longest sleep of a waiter between checks, in case a watch event was lost. */
	static final Duration RECHECK = Duration.ofSeconds(2);

	private final CuratorFramework client;

	private final LockNodePaths paths;

	/**
	 * Creates a provider.
	 * @param client a started Curator client (the caller closes it)
	 * @param basePath the node latches live under, as for locks
	 */
	public ZooKeeperLatchProvider(CuratorFramework client, String basePath) {
		this.client = client;
		this.paths = new LockNodePaths(basePath);
	}

	@Override
	public String name() {
		return "zookeeper";
	}

	@Override
	public boolean trySetCount(String latch, long count, Duration expiry) throws Exception {
		try {
			this.client.create()
				.withTtl(Math.max(1, expiry.toMillis()))
				.creatingParentContainersIfNeeded()
				.withMode(CreateMode.PERSISTENT_WITH_TTL)
				.forPath(path(latch), bytes(count));
			return true;
		}
		catch (KeeperException.NodeExistsException ex) {
			return false;
		}
		catch (KeeperException.UnimplementedException ex) {
			throw new LockConfigurationException("ZooKeeper latches are nodes with a TTL, which these servers do "
					+ "not allow: start every server with -Dzookeeper.extendedTypesEnabled=true", ex);
		}
	}

	@Override
	public void countDown(String latch) throws Exception {
		String path = path(latch);
		while (true) {
			Stat stat = new Stat();
			try {
				long count = parse(this.client.getData().storingStatIn(stat).forPath(path));
				if (count <= 1) {
					this.client.delete().withVersion(stat.getVersion()).forPath(path);
				}
				else {
					this.client.setData().withVersion(stat.getVersion()).forPath(path, bytes(count - 1));
				}
				return;
			}
			catch (KeeperException.NoNodeException ex) {
				return;
			}
			catch (KeeperException.BadVersionException ex) {
				// another count-down came first: read again
			}
		}
	}

	@Override
	public long count(String latch) throws Exception {
		try {
			return parse(this.client.getData().forPath(path(latch)));
		}
		catch (KeeperException.NoNodeException ex) {
			return 0;
		}
	}

	/**
	 * Watches the latch's node: a count-down or its deletion wakes the waiter, which
	 * reads it again.
	 */
	@Override
	public boolean await(String latch, LatchWaiter waiter) throws Exception {
		String path = path(latch);
		WakeUpSignal signal = new WakeUpSignal();
		CuratorWatcher watcher = (event) -> signal.signal();
		try {
			while (this.client.checkExists().usingWatcher(watcher).forPath(path) != null) {
				long left = waiter.remaining().toNanos();
				if (left <= 0) {
					return false;
				}
				signal.await(Math.min(left, RECHECK.toNanos()));
			}
			return true;
		}
		finally {
			try {
				this.client.watchers().remove(watcher).ofType(Watcher.WatcherType.Any).locally().forPath(path);
			}
			catch (Exception ex) {
				// the watch fired already
			}
		}
	}

	private String path(String latch) {
		return this.paths.basePath() + "/" + LockNodePaths.encodeKey(latch) + "/latch";
	}

	private static byte[] bytes(long count) {
		return Long.toString(count).getBytes(StandardCharsets.UTF_8);
	}

	private static long parse(byte[] data) {
		return Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
	}

}
