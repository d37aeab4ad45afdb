package dev.distlock.bench;

import org.apache.curator.test.TestingServer;

/**
 * The ZooKeeper a subject talks to: the one named by {@code bench.zk.connect}, or an
 * in-process Curator {@link TestingServer} (a real ZooKeeper server on a free port) owned
 * by the subject and stopped with it.
 */
final class ZooKeeperServer implements AutoCloseable {

	private final String connectString;

	private final TestingServer server;

	private ZooKeeperServer(String connectString, TestingServer server) {
		this.connectString = connectString;
		this.server = server;
	}

	static ZooKeeperServer start(BenchConfig config) throws Exception {
		if (config.zkConnect() != null) {
			return new ZooKeeperServer(config.zkConnect(), null);
		}
		TestingServer server = new TestingServer(true);
		return new ZooKeeperServer(server.getConnectString(), server);
	}

	String connectString() {
		return this.connectString;
	}

	@Override
	public void close() throws Exception {
		if (this.server != null) {
			this.server.close();
		}
	}

}
