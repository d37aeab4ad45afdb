package dev.distlock.fault;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.test.TestServers;

/**
 * A {@code redis-server} process of a fault test's own, on a free port, without
 * persistence: killed with SIGKILL and restarted on the same port on demand, never the
 * shared server. {@link #command(String...)} talks RESP over a plain socket.
 */
final class RedisNode implements AutoCloseable {

	private final int port;

	private final Path dir;

	private Process process;

	private RedisNode(int port, Path dir) {
		this.port = port;
		this.dir = dir;
	}

	static RedisNode start(Path dir) throws Exception {
		RedisNode node = new RedisNode(TestServers.freePort(), dir);
		node.restart();
		return node;
	}

	int port() {
		return this.port;
	}

	/** Starts the server (again) and waits until it answers PING. */
	void restart() throws Exception {
		this.process = new ProcessBuilder(TestServers.redisServerBinary().toString(), "--port",
				Integer.toString(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
				this.dir.toString(), "--daemonize", "no")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.dir.resolve("redis-" + this.port + ".log").toFile()))
			.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (this.process.isAlive() && command("PING").contains("PONG")) {
				return;
			}
			Thread.sleep(20);
		}
		throw new IllegalStateException("redis-server did not start on port " + this.port + "; see " + this.dir);
	}

	/** Kills the server with SIGKILL, as a crash would. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("redis-server on port " + this.port + " did not die");
		}
	}

	/**
	 * Sends one command and returns the raw reply, or the error's text if the server
	 * cannot be reached.
	 * @param arguments the command and its arguments
	 * @return the reply as received
	 */
	String command(String... arguments) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 500);
			socket.setSoTimeout(2000);
			StringBuilder request = new StringBuilder().append('*').append(arguments.length).append("\r\n");
			for (String argument : arguments) {
				request.append('$')
					.append(argument.getBytes(StandardCharsets.UTF_8).length)
					.append("\r\n")
					.append(argument)
					.append("\r\n");
			}
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = socket.getInputStream();
			ByteArrayOutputStream reply = new ByteArrayOutputStream();
			byte[] buffer = new byte[8192];
			socket.setSoTimeout(200);
			long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
			while (System.nanoTime() < deadline) {
				try {
					int n = in.read(buffer);
					if (n < 0) {
						break;
					}
					reply.write(buffer, 0, n);
				}
				catch (java.net.SocketTimeoutException ex) {
					if (reply.size() > 0) {
						break;
					}
				}
			}
			return reply.toString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no reply: " + ex + ")";
		}
	}

	/** Every key of this server matching a pattern. */
	List<String> keys(String pattern) {
		List<String> keys = new ArrayList<>();
		for (String line : command("KEYS", pattern).split("\r\n")) {
			if (!line.isEmpty() && !line.startsWith("*") && !line.startsWith("$")) {
				keys.add(line);
			}
		}
		return keys;
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process != null && this.process.isAlive()) {
			kill();
		}
	}

}
