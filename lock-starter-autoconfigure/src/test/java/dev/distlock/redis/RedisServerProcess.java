package dev.distlock.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.test.TestServers;

/**
 * A {@code redis-server} process a fault test starts on a port of its own, without
 * persistence, and kills with SIGKILL; never the shared server.
 */
final class RedisServerProcess {

	private final int port;

	private final Path log;

	private final Process process;

	private RedisServerProcess(int port, Path log, Process process) {
		this.port = port;
		this.log = log;
		this.process = process;
	}

	/**
	 * Starts a server and waits until it answers PING.
	 * @param port the port to listen on
	 * @param dir working directory (logs, cluster config)
	 * @param extraArguments more {@code redis-server} options
	 * @return the running server
	 */
	static RedisServerProcess start(int port, Path dir, String... extraArguments)
			throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(
				List.of(TestServers.redisServerBinary().toString(), "--port", Integer.toString(port), "--bind",
						"127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"));
		command.addAll(List.of(extraArguments));
		Path log = dir.resolve("redis-" + port + ".log");
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
			.start();
		RedisServerProcess server = new RedisServerProcess(port, log, process);
		server.awaitReply(Duration.ofSeconds(10), "PONG", "PING");
		return server;
	}

	int port() {
		return this.port;
	}

	String address() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * Runs {@code redis-cli} against this server.
	 * @param arguments the command
	 * @return its output, or the error text if it failed
	 */
	String cli(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(
				List.of(redisCli().toString(), "-h", "127.0.0.1", "-p", Integer.toString(this.port)));
		command.addAll(List.of(arguments));
		return run(command, Duration.ofSeconds(10));
	}

	/**
	 * Waits until a command's output contains the expected text.
	 */
	void awaitReply(Duration timeout, String expected, String... command) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		String last = "";
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server on port " + this.port + " exited: " + logText());
			}
			last = cli(command);
			if (last.contains(expected)) {
				return;
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("redis-server on port " + this.port + " did not answer " + expected + " to "
				+ String.join(" ", command) + " within " + timeout + " (last: " + last + "); log: " + logText());
	}

	/** Kills the server at once (SIGKILL), as a crash would. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("redis-server on port " + this.port + " did not die");
		}
	}

	private String logText() {
		try {
			return Files.readString(this.log, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no log: " + ex + ")";
		}
	}

	static Path redisCli() {
		Path cli = TestServers.redisServerBinary().resolveSibling("redis-cli");
		if (!Files.isExecutable(cli)) {
			throw new IllegalStateException("redis-cli not found beside " + TestServers.redisServerBinary()
					+ "; install it with: apt-get install redis-tools");
		}
		return cli;
	}

	static String run(List<String> command, Duration timeout) throws IOException, InterruptedException {
		Path output = Files.createTempFile("redis-cli", ".out");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(output.toFile())
				.start();
			if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("Timed out after " + timeout + ": " + String.join(" ", command));
			}
			return Files.readString(output, StandardCharsets.UTF_8);
		}
		finally {
			Files.deleteIfExists(output);
		}
	}

}
