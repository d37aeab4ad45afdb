package dev.distlock.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

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
		TestingServer server = inProcess();
		return new ZooKeeperServer(server.getConnectString(), server);
	}

	/**
	 * Starts an in-process server whose data directory is on tmpfs ({@code /dev/shm})
	 * where there is one, or else in {@code bench.zk.dir}: a log forced to this machine's
	 * disk made the ZooKeeper figures swing by up to four times from one fork to the next
	 * on the same code (the disk's other writes, a build's or PostgreSQL's checkpoints,
	 * delay every {@code fsync}), and both clients wait for the same server, so the
	 * figures compare the clients, not the disk. The directory goes with the server.
	 * @return the started server
	 */
	static TestingServer inProcess() throws Exception {
		String configured = System.getProperty("bench.zk.dir");
		Path parent = (configured != null) ? Path.of(configured) : Path.of("/dev/shm");
		if (!Files.isDirectory(parent) || !Files.isWritable(parent)) {
			return new TestingServer(true);
		}
		File directory = Files.createTempDirectory(parent, "bench-zk-").toFile();
		return new TestingServer(-1, directory, true);
	}

	/**
	 * Runs a server in a JVM of its own until the process is stopped, for the scaling
	 * benchmark: {@link HeldLeases} then measures the client's heap, threads and CPU
	 * without the server's data tree and request threads.
	 * @param args the file to write the connect string to once the server runs
	 * @throws Exception if the server did not start
	 */
	public static void main(String[] args) throws Exception {
		TestingServer server = inProcess();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			try {
				server.close();
			}
			catch (Exception ex) {
				// stopping anyway
			}
		}));
		Path file = Path.of(args[0]);
		Path written = file.resolveSibling(file.getFileName() + ".tmp");
		Files.writeString(written, server.getConnectString());
		Files.move(written, file, StandardCopyOption.ATOMIC_MOVE);
		Thread.sleep(Long.MAX_VALUE);
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
