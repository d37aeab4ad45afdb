package dev.distlock.redisson;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.test.TestServers;

/**
 * Independent {@code redis-server} processes on free ports, without persistence, for
 * quorum tests: started here, killed (SIGKILL) on demand, all stopped on
 * {@link #close()}. Never touches the shared server.
 */
final class RedisProcesses implements AutoCloseable {

	private final List<Process> processes = new ArrayList<>();

	private final List<Integer> ports = new ArrayList<>();

	private final Path dir;

	private RedisProcesses(Path dir) {
		this.dir = dir;
	}

	static RedisProcesses start(int count) throws Exception {
		RedisProcesses servers = new RedisProcesses(Files.createTempDirectory("distlock-redis"));
		try {
			for (int i = 0; i < count; i++) {
				servers.startOne();
			}
			return servers;
		}
		catch (Exception | Error ex) {
			servers.close();
			throw ex;
		}
	}

	private void startOne() throws Exception {
		for (int tries = 0; tries < 5; tries++) {
			int port = TestServers.freePort();
			Process process = new ProcessBuilder(TestServers.redisServerBinary().toString(), "--port",
					String.valueOf(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize",
					"no", "--dir", this.dir.toString())
				.redirectErrorStream(true)
				.redirectOutput(this.dir.resolve("redis-" + port + ".log").toFile())
				.start();
			if (awaitPong(port, process)) {
				this.processes.add(process);
				this.ports.add(port);
				return;
			}
			process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
		}
		throw new IllegalStateException("Could not start redis-server; see the logs in " + this.dir);
	}

	private static boolean awaitPong(int port, Process process) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline && process.isAlive()) {
			if (ping(port)) {
				return true;
			}
			Thread.sleep(20);
		}
		return false;
	}

	static boolean ping(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
			socket.setSoTimeout(500);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = new byte[7];
			int read = in.read(reply);
			return read > 0 && new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	int size() {
		return this.processes.size();
	}

	String address(int index) {
		return "redis://127.0.0.1:" + this.ports.get(index);
	}

	List<String> addresses() {
		List<String> addresses = new ArrayList<>();
		for (int i = 0; i < size(); i++) {
			addresses.add(address(i));
		}
		return addresses;
	}

	/** Kills one server at once (SIGKILL), as a crash would. */
	void kill(int index) throws InterruptedException {
		Process process = this.processes.get(index);
		process.destroyForcibly();
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("redis-server on port " + this.ports.get(index) + " did not die");
		}
	}

	@Override
	public void close() throws InterruptedException {
		for (Process process : this.processes) {
			process.destroyForcibly();
		}
		for (Process process : this.processes) {
			process.waitFor(10, TimeUnit.SECONDS);
		}
		try (var files = Files.walk(this.dir)) {
			files.sorted(java.util.Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// only logs of finished servers are left behind
		}
	}

}
