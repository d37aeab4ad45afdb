package dev.distlock.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.util.FileSystemUtils;

/**
 * The etcd a subject talks to: the endpoints named by {@value #ENDPOINTS}, or one
 * {@code etcd} process (Debian's {@code etcd-server}, {@code /usr/bin/etcd}) on free
 * loopback ports with a temporary data directory, owned by the subject and killed with
 * it.
 */
final class EtcdServer implements AutoCloseable {

	/** The system property naming an etcd to use instead of starting one. */
	static final String ENDPOINTS = "bench.etcd.endpoints";

	private final String endpoints;

	private final Process process;

	private final Path dir;

	private EtcdServer(String endpoints, Process process, Path dir) {
		this.endpoints = endpoints;
		this.process = process;
		this.dir = dir;
	}

	static EtcdServer start() throws IOException, InterruptedException {
		String given = System.getProperty(ENDPOINTS);
		if (given != null) {
			return new EtcdServer(given, null, null);
		}
		Path binary = Paths.get("/usr/bin/etcd");
		if (!Files.isExecutable(binary)) {
			throw new IllegalStateException(
					"/usr/bin/etcd not found: apt-get install etcd-server, or set -D" + ENDPOINTS);
		}
		int clientPort = freePort();
		int peerPort = freePort();
		Path dir = Files.createTempDirectory("bench-etcd");
		String client = "http://127.0.0.1:" + clientPort;
		String peer = "http://127.0.0.1:" + peerPort;
		Process process = new ProcessBuilder(
				List.of(binary.toString(), "--data-dir", dir.resolve("data").toString(), "--listen-client-urls", client,
						"--advertise-client-urls", client, "--listen-peer-urls", peer, "--initial-advertise-peer-urls",
						peer, "--initial-cluster", "default=" + peer, "--log-level", "warn", "--logger", "zap"))
			.redirectErrorStream(true)
			.redirectOutput(dir.resolve("etcd.log").toFile())
			.start();
		EtcdServer server = new EtcdServer(client, process, dir);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!listening(clientPort)) {
			if (!process.isAlive() || System.nanoTime() > deadline) {
				server.close();
				throw new IllegalStateException("etcd did not start; see " + dir.resolve("etcd.log"));
			}
			Thread.sleep(50);
		}
		return server;
	}

	private static boolean listening(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	String endpoints() {
		return this.endpoints;
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process != null) {
			this.process.destroyForcibly();
			this.process.waitFor(10, TimeUnit.SECONDS);
			FileSystemUtils.deleteRecursively(this.dir.toFile());
		}
	}

}
