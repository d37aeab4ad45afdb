package dev.distlock.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.test.TestServers;

/**
 * The sample application in a JVM process of its own, started from this test's class
 * path: as real a second instance as one machine gives. Its output goes to
 * {@code target/<name>.log}.
 */
final class SampleProcess implements AutoCloseable {

	private final String name;

	private final Process process;

	private final Path log;

	private final SampleHttp http;

	private SampleProcess(String name, Process process, Path log, int port) {
		this.name = name;
		this.process = process;
		this.log = log;
		this.http = new SampleHttp(port);
	}

	/**
	 * Starts an instance and waits until it answers on its health endpoint.
	 * @param name the instance's name ({@code sample.instance-name}), also its log's name
	 * @param arguments further {@code --property=value} arguments
	 */
	static SampleProcess start(String name, List<String> arguments) throws Exception {
		return start(name, List.of(), arguments);
	}

	/**
	 * Starts an instance with JVM options and waits until it answers on its health
	 * endpoint.
	 * @param name the instance's name ({@code sample.instance-name}), also its log's name
	 * @param jvmOptions options of the JVM, such as {@code -Dspring.aot.enabled=true}
	 * @param arguments further {@code --property=value} arguments
	 */
	static SampleProcess start(String name, List<String> jvmOptions, List<String> arguments) throws Exception {
		int port = TestServers.freePort();
		Path log = Path.of("target", name + ".log").toAbsolutePath();
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-Xmx384m");
		command.add("-XX:TieredStopAtLevel=1"); // starts faster; the instances do little
												// work
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(SampleApplication.class.getName());
		command.add("--server.port=" + port);
		command.add("--sample.instance-name=" + name);
		command.addAll(arguments);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		SampleProcess instance = new SampleProcess(name, process, log, port);
		try {
			instance.awaitReady(Duration.ofSeconds(120));
		}
		catch (Exception | AssertionError ex) {
			instance.close();
			throw ex;
		}
		return instance;
	}

	SampleHttp http() {
		return this.http;
	}

	String name() {
		return this.name;
	}

	private void awaitReady(Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new AssertionError(
						"Instance " + this.name + " exited with " + this.process.exitValue() + ":\n" + tail());
			}
			try {
				if (this.http.get("/actuator/health").status() == 200) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// not listening yet
			}
			Thread.sleep(250);
		}
		throw new AssertionError("Instance " + this.name + " did not start within " + timeout + ":\n" + tail());
	}

	/**
	 * The instance's output so far.
	 * @return its log
	 */
	String log() throws IOException {
		return Files.readString(this.log);
	}

	String tail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 40), lines.size()));
		}
		catch (IOException ex) {
			return "(no log at " + this.log + ")";
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy(); // SIGTERM: Spring closes the context and releases what it
								// holds
		if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
	}

}
