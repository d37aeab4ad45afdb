package dev.distlock.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

import org.springframework.util.FileSystemUtils;

/**
 * Clients and tree inspection for the ZooKeeper tests.
 */
public final class ZooKeeperTestSupport {

	static {
		// the in-process servers stand in for an ensemble; an fsync per write on a disk
		// shared with other builds only adds seconds of random latency that the timing
		// checks of the contract would mistake for bugs
		System.setProperty("zookeeper.forceSync", "no");
	}

	private ZooKeeperTestSupport() {
	}

	/**
	 * A started in-process server on a free port.
	 * @return the server
	 */
	public static TestingServer server() throws Exception {
		return new TestingServer(true);
	}

	/**
	 * An ensemble of in-process servers, not started.
	 * @param size the number of servers
	 * @return the ensemble
	 */
	static TestingCluster cluster(int size) {
		return new TestingCluster(size);
	}

	/**
	 * A started client with short timeouts, connected.
	 */
	public static CuratorFramework client(String connectString) throws InterruptedException {
		return client(connectString, 10_000);
	}

	/**
	 * A started client with the given session timeout, connected.
	 */
	public static CuratorFramework client(String connectString, int sessionTimeoutMs) throws InterruptedException {
		return client(connectString, sessionTimeoutMs, 5_000, new ExponentialBackoffRetry(100, 3));
	}

	static CuratorFramework client(String connectString, int sessionTimeoutMs, int connectionTimeoutMs,
			RetryPolicy retryPolicy) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(sessionTimeoutMs)
			.connectionTimeoutMs(connectionTimeoutMs)
			.retryPolicy(retryPolicy)
			.build();
		client.start();
		if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Could not connect to ZooKeeper at " + connectString);
		}
		return client;
	}

	/**
	 * Every queue node under the base path whose key segment starts with the given
	 * encoded prefix.
	 * @return the nodes' paths
	 */
	static List<String> lockNodes(CuratorFramework client, String basePath, String encodedKeyPrefix) {
		List<String> nodes = new ArrayList<>();
		try {
			for (String key : children(client, basePath)) {
				if (!key.startsWith(encodedKeyPrefix)) {
					continue;
				}
				for (String family : children(client, basePath + "/" + key)) {
					String lockPath = basePath + "/" + key + "/" + family;
					for (String node : children(client, lockPath)) {
						nodes.add(lockPath + "/" + node);
					}
				}
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not list " + basePath, ex);
		}
		return nodes;
	}

	/**
	 * Waits up to 20 s until exactly {@code count} queue nodes are under the base path.
	 */
	public static void awaitLockNodes(CuratorFramework client, String basePath, int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		List<String> nodes;
		while ((nodes = lockNodes(client, basePath, "")).size() != count) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError(
						"Expected " + count + " queue nodes under " + basePath + " within 20 s, found " + nodes);
			}
			Thread.sleep(10);
		}
	}

	private static List<String> children(CuratorFramework client, String path) throws Exception {
		try {
			return client.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
	}

	/**
	 * A standalone ZooKeeper server in this JVM whose data tree a test can reach, to set
	 * up states that no client request can reach in reasonable time (a lock node's child
	 * version near 2^31). It runs no container reaper.
	 */
	static final class TreeServer implements AutoCloseable {

		private final Path directory;

		private final ZooKeeperServer server;

		private final ServerCnxnFactory connections;

		TreeServer() throws IOException, InterruptedException {
			this.directory = Files.createTempDirectory("distlock-zk-");
			this.server = new ZooKeeperServer(this.directory.toFile(), this.directory.toFile(), 2000);
			this.connections = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
			this.connections.startup(this.server);
		}

		String connectString() {
			return "127.0.0.1:" + this.connections.getLocalPort();
		}

		DataTree tree() {
			return this.server.getZKDatabase().getDataTree();
		}

		/** The requests (pings included) the server has read from all clients. */
		long packetsReceived() {
			return this.server.serverStats().getPacketsReceived();
		}

		@Override
		public void close() throws IOException {
			this.connections.shutdown();
			this.server.shutdown();
			FileSystemUtils.deleteRecursively(this.directory);
		}

	}

	/**
	 * The server of an ensemble that says it leads (four-letter word {@code srvr}), asked
	 * every 100 ms until one does.
	 * @param specs the ensemble's servers
	 * @param bound how long an election may take
	 * @return the leader's spec
	 * @throws IllegalStateException if no server leads within the bound
	 */
	public static InstanceSpec leader(Collection<InstanceSpec> specs, Duration bound) throws InterruptedException {
		long deadline = System.nanoTime() + bound.toNanos();
		while (System.nanoTime() < deadline) {
			for (InstanceSpec spec : specs) {
				if (srvr(spec).contains("Mode: leader")) {
					return spec;
				}
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("No leader in the ensemble within " + bound.toSeconds() + " s");
	}

	private static String srvr(InstanceSpec spec) {
		try (Socket socket = new Socket("127.0.0.1", spec.getPort())) {
			socket.setSoTimeout(2000);
			OutputStream out = socket.getOutputStream();
			out.write("srvr".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
		}
		catch (Exception ex) {
			// electing, or the server is down
			return "";
		}
	}

}
