package dev.distlock.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * {@code curator-mutex}: Curator's {@link InterProcessMutex}, one instance per lock path
 * shared by the threads of this JVM (it is thread-safe and re-entrant per thread), on one
 * Curator client.
 */
final class CuratorMutex implements Subject {

	private final ZooKeeperServer server;

	private final CuratorFramework client;

	private final String root;

	private final Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();

	CuratorMutex(BenchConfig config) throws Exception {
		this.server = ZooKeeperServer.start(config);
		this.client = CuratorFrameworkFactory.newClient(this.server.connectString(),
				new ExponentialBackoffRetry(100, 3));
		this.client.start();
		if (!this.client.blockUntilConnected(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("ZooKeeper at " + this.server.connectString() + " not reachable");
		}
		this.root = "/bench-" + config.runId() + "/";
	}

	@Override
	public Hold lock(String key) throws Exception {
		InterProcessMutex mutex = this.mutexes.computeIfAbsent(key,
				(k) -> new InterProcessMutex(this.client, this.root + k.replace('/', '_')));
		if (!mutex.acquire(BenchConfig.WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("InterProcessMutex " + key + " not acquired within " + BenchConfig.WAIT);
		}
		return mutex::release;
	}

	@Override
	public void close() throws Exception {
		try {
			this.client.delete().deletingChildrenIfNeeded().forPath(this.root.substring(0, this.root.length() - 1));
		}
		catch (Exception ex) {
			// best-effort cleanup of the run's nodes
		}
		this.client.close();
		this.server.close();
	}

}
