package dev.distlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Another process on the test class path, for tests that need a holder that really dies
 * or really stops: its main class talks over stdout lines and stdin commands.
 * {@link #pause()} sends SIGSTOP to this child's pid (and {@link #resume()} SIGCONT),
 * which freezes every thread of it the way a long stop-the-world GC pause or a frozen VM
 * does; {@link #kill()} is SIGKILL. Only this child's own pid is ever signalled.
 */
public final class ChildJvm implements AutoCloseable {

	private final Process process;

	private final String name;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final List<String> seen = new ArrayList<>();

	private final Writer stdin;

	private ChildJvm(Process process, String name) {
		this.process = process;
		this.name = name;
		this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		Thread reader = new Thread(() -> {
			try (BufferedReader out = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = out.readLine()) != null) {
					this.lines.add(line);
					System.out.println("[" + name + "] " + line);
				}
			}
			catch (IOException ex) {
				// the child is gone
			}
		}, "child-jvm-" + name);
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts {@code mainClass} in a new JVM with this JVM's class path; its stderr goes
	 * to this JVM's.
	 * @param name what to call it in logs
	 * @param mainClass the class with the main method
	 * @param args its arguments
	 * @return the child
	 */
	public static ChildJvm start(String name, Class<?> mainClass, String... args) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-Xmx128m");
		command.add("-XX:TieredStopAtLevel=1");
		// stdout is the child's protocol: its logs go to stderr, warnings only
		command.add("-Dlogback.configurationFile=" + quietLogging());
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(mainClass.getName());
		command.addAll(List.of(args));
		Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
		return new ChildJvm(process, name);
	}

	private static String quietLogging() throws IOException {
		Path config = Files.createTempFile("child-jvm-logback", ".xml");
		config.toFile().deleteOnExit();
		Files.writeString(config,
				"<configuration><appender name=\"err\" "
						+ "class=\"ch.qos.logback.core.ConsoleAppender\"><target>System.err</target><encoder><pattern>"
						+ "%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder></appender>"
						+ "<root level=\"WARN\"><appender-ref ref=\"err\"/></root></configuration>");
		return config.toString();
	}

	/**
	 * Waits for the next stdout line starting with {@code prefix}, skipping others.
	 * @param prefix the line's start
	 * @param timeout how long to wait
	 * @return the rest of the line after the prefix, trimmed
	 * @throws AssertionError if none came in time
	 */
	public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			long left = deadline - System.nanoTime();
			String line = (left > 0) ? this.lines.poll(left, TimeUnit.NANOSECONDS) : null;
			if (line == null) {
				throw new AssertionError(
						"Child " + this.name + " printed no line starting with '" + prefix + "' within " + timeout
								+ " (alive: " + this.process.isAlive() + "; lines so far: " + this.seen + ")");
			}
			this.seen.add(line);
			if (line.startsWith(prefix)) {
				return line.substring(prefix.length()).trim();
			}
		}
	}

	/**
	 * Every line the child printed so far; lines not awaited yet are taken, so a later
	 * {@link #awaitLine} sees only what is printed after this call.
	 * @return the lines, oldest first
	 */
	public List<String> linesSeen() {
		this.lines.drainTo(this.seen);
		return new ArrayList<>(this.seen);
	}

	/** Sends one line to the child's stdin. */
	public void send(String line) throws IOException {
		this.stdin.write(line + "\n");
		this.stdin.flush();
	}

	/** SIGSTOP: freezes every thread of the child. */
	public void pause() throws IOException, InterruptedException {
		signal("STOP");
	}

	/** SIGCONT: lets a paused child run again. */
	public void resume() throws IOException, InterruptedException {
		signal("CONT");
	}

	/** SIGKILL: the child dies at once, releasing nothing. */
	public void kill() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor(10, TimeUnit.SECONDS);
	}

	public long pid() {
		return this.process.pid();
	}

	private void signal(String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).inheritIO().start();
		if (kill.waitFor() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
		}
	}

	@Override
	public void close() throws Exception {
		if (this.process.isAlive()) {
			signal("CONT");
			kill();
		}
	}

}
