package dev.distlock.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;

import org.springframework.util.FileSystemUtils;

/**
 * One fault run: its child JVMs ({@link FaultWorkerApp}) contending for one key, the
 * faults the test applies to them (pauses with SIGSTOP/SIGCONT, kills with SIGKILL, only
 * of these children), their merged history, the resource's write log, and a line in
 * {@code target/fault-results.tsv} with what the checker found.
 */
final class FaultRun implements AutoCloseable {

	private static final Duration STARTUP = Duration.ofSeconds(60);

	private final String backend;

	private final String fault;

	private final String run = "f" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final Path dir;

	private final JdbcServer postgres = TestServers.postgres();

	private final Map<String, Process> workers = new LinkedHashMap<>();

	private final Map<String, Long> deaths = new LinkedHashMap<>();

	private final Map<String, List<long[]>> pauses = new LinkedHashMap<>();

	private long stoppedAt = -1;

	/** One row of the resource's write log. */
	record Write(long id, String worker, long token, boolean fenced, boolean accepted) {
	}

	FaultRun(String backend, String fault) throws Exception {
		this.backend = backend;
		this.fault = fault;
		this.dir = Files.createTempDirectory("distlock-fault-" + backend + "-");
		try (Connection con = resourceConnection(); Statement statement = con.createStatement()) {
			statement.execute(FencedResource.SCHEMA);
			statement.executeUpdate(
					"INSERT INTO fault_resource (run, token, unfenced_token) VALUES ('" + this.run + "', 0, 0)");
		}
	}

	String run() {
		return this.run;
	}

	String key() {
		return "fault:" + this.run;
	}

	/**
	 * Starts a child JVM and waits until its context is up.
	 * @param worker its name in the history
	 * @param backendArguments the backend's Spring Boot arguments
	 */
	void start(String worker, List<String> backendArguments) throws Exception {
		launch(worker, backendArguments);
		awaitReady();
	}

	/**
	 * Starts a child JVM without waiting for it ({@link #awaitReady()} does): children
	 * start side by side.
	 * @param worker its name in the history
	 * @param backendArguments the backend's Spring Boot arguments
	 */
	void launch(String worker, List<String> backendArguments) throws Exception {
		Path history = this.dir.resolve(worker + ".history");
		List<String> command = new ArrayList<>(
				List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx160m", "-Xss512k",
						"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
						FaultWorkerApp.class.getName()));
		command.addAll(backendArguments);
		command.addAll(List.of("--fault.worker=" + worker, "--fault.history=" + history, "--fault.key=" + key(),
				"--fault.run=" + this.run, "--fault.resource-url=" + resourceUrl(),
				"--distlock.key-prefix=distlock-fault:", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
				"--logging.level.dev.distlock=INFO"));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(this.dir.resolve(worker + ".log").toFile())
			.start();
		this.workers.put(worker, process);
	}

	/** Waits until every launched child's context is up and its loop runs. */
	void awaitReady() throws Exception {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		for (Map.Entry<String, Process> worker : this.workers.entrySet()) {
			while (!this.deaths.containsKey(worker.getKey()) && !history().isReady(worker.getKey())) {
				if (!worker.getValue().isAlive() || System.nanoTime() > deadline) {
					throw new IllegalStateException(
							"Worker " + worker.getKey() + " did not start; its log:\n" + log(worker.getKey()));
				}
				Thread.sleep(50);
			}
		}
	}

	FaultHistory history() throws IOException {
		List<Path> files = new ArrayList<>();
		for (String worker : this.workers.keySet()) {
			files.add(this.dir.resolve(worker + ".history"));
		}
		return FaultHistory.read(files);
	}

	/**
	 * Waits until one of the workers holds the lock (inside the method, before its write)
	 * and returns it.
	 * @param timeout how long to wait
	 * @return the holder's name
	 */
	String awaitHolder(Duration timeout) throws Exception {
		return awaitHolder(null, timeout);
	}

	/**
	 * Waits until the given worker (any, if {@code null}) has just taken the lock and
	 * returns its name.
	 * @param wanted the worker, or {@code null}
	 * @param timeout how long to wait
	 * @return the holder's name
	 */
	String awaitHolder(String wanted, Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			FaultHistory history = history();
			for (String worker : this.workers.keySet()) {
				if (wanted != null && !wanted.equals(worker)) {
					continue;
				}
				FaultHistory.Call holding = history.holding(worker);
				// freshly acquired, so the hold has most of its work still ahead
				if (holding != null && System.nanoTime() - holding.acquired() < Duration.ofMillis(100).toNanos()
						&& !this.deaths.containsKey(worker)) {
					return worker;
				}
			}
			Thread.sleep(5);
		}
		throw new IllegalStateException("Nobody took the lock within " + timeout + "; logs:\n" + logs());
	}

	/**
	 * Waits until every live worker completed a call with an accepted write since now.
	 */
	void awaitProgress(Duration timeout) throws Exception {
		long since = System.nanoTime();
		long deadline = since + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			FaultHistory history = history();
			boolean all = this.workers.keySet()
				.stream()
				.filter((worker) -> !this.deaths.containsKey(worker))
				.allMatch((worker) -> history.calls(worker)
					.stream()
					.anyMatch((call) -> call.requested() > since && Boolean.TRUE.equals(call.accepted())));
			if (all) {
				return;
			}
			Thread.sleep(50);
		}
	}

	/** Stops a worker with SIGSTOP for {@code duration}, then resumes it with SIGCONT. */
	void pause(String worker, Duration duration) throws Exception {
		long pid = this.workers.get(worker).pid();
		long from = System.nanoTime();
		signal("-STOP", pid);
		Thread.sleep(duration.toMillis());
		signal("-CONT", pid);
		this.pauses.computeIfAbsent(worker, (w) -> new ArrayList<>()).add(new long[] { from, System.nanoTime() });
	}

	/** Kills a worker with SIGKILL and returns the nano time of the kill. */
	long kill(String worker) throws Exception {
		Process process = this.workers.get(worker);
		long at = System.nanoTime();
		signal("-KILL", process.pid());
		this.deaths.put(worker, at);
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Worker " + worker + " did not die");
		}
		return at;
	}

	private static void signal(String signal, long pid) throws Exception {
		Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).redirectErrorStream(true).start();
		if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IllegalStateException("kill " + signal + " " + pid + " failed: "
					+ new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
		}
	}

	/**
	 * Stops every worker (closing its standard input) and returns the checker over the
	 * run.
	 */
	FaultChecker stop() throws Exception {
		this.stoppedAt = System.nanoTime();
		dumpThreads();
		for (Process process : this.workers.values()) {
			process.getOutputStream().close();
		}
		for (Process process : this.workers.values()) {
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		return new FaultChecker(history(), writes(), this.deaths, this.pauses).lease(AbstractFaultTests.LEASE);
	}

	/**
	 * Appends each live child's thread dump to its log (for the failure message); only
	 * this run's children.
	 */
	private void dumpThreads() {
		Path jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd");
		for (Map.Entry<String, Process> worker : this.workers.entrySet()) {
			if (!worker.getValue().isAlive() || !Files.isExecutable(jcmd)) {
				continue;
			}
			try {
				Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(worker.getValue().pid()),
						"Thread.print")
					.redirectErrorStream(true)
					.start();
				String text = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
				dump.waitFor(10, TimeUnit.SECONDS);
				StringBuilder relevant = new StringBuilder("\n==== threads at stop\n");
				for (String thread : text.split("\n\n")) {
					if (thread.contains("dev.distlock")) {
						relevant.append(thread).append("\n\n");
					}
				}
				Files.writeString(this.dir.resolve(worker.getKey() + ".log"), relevant, StandardCharsets.UTF_8,
						StandardOpenOption.APPEND);
			}
			catch (IOException | InterruptedException ex) {
				// diagnostics only
			}
		}
	}

	long stoppedAt() {
		return this.stoppedAt;
	}

	List<String> live() {
		return this.workers.keySet().stream().filter((worker) -> !this.deaths.containsKey(worker)).toList();
	}

	List<Write> writes() throws SQLException {
		List<Write> writes = new ArrayList<>();
		try (Connection con = resourceConnection();
				PreparedStatement select = con.prepareStatement(
						"SELECT id, worker, token, fenced, accepted FROM fault_write WHERE run = ? ORDER BY id")) {
			select.setString(1, this.run);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					writes.add(new Write(rows.getLong(1), rows.getString(2), rows.getLong(3), rows.getBoolean(4),
							rows.getBoolean(5)));
				}
			}
		}
		return writes;
	}

	/**
	 * Appends the run's result to {@code target/fault-results.tsv} (backend, fault,
	 * holds, violations, allowed overlaps, stale grants, max recovery); the test asserts
	 * on the checker and the count.
	 * @return the number of calls that held the lock during the run
	 */
	long record(FaultChecker checker) throws Exception {
		FaultHistory history = history();
		long holds = history.calls().stream().filter(FaultHistory.Call::held).count();
		String line = String.join("\t", this.backend, this.fault, Long.toString(holds),
				Integer.toString(checker.violations().size()), Integer.toString(checker.allowedOverlaps()),
				Integer.toString(checker.staleGrants()), FaultHistory.ms(checker.maxRecoveryNanos()),
				String.join(" | ", checker.notes())) + "\n";
		Files.writeString(Paths.get("target", "fault-results.tsv"), line, StandardCharsets.UTF_8,
				StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		System.out.print("[fault] " + line);
		return holds;
	}

	/** The backend and the fault, for messages. */
	String name() {
		return this.backend + " / " + this.fault;
	}

	String logs() {
		StringBuilder logs = new StringBuilder();
		for (String worker : this.workers.keySet()) {
			logs.append("---- ").append(worker).append('\n').append(log(worker));
		}
		return logs.toString();
	}

	private String log(String worker) {
		try {
			String text = Files.readString(this.dir.resolve(worker + ".log"), StandardCharsets.UTF_8);
			return (text.length() > 6000) ? "..." + text.substring(text.length() - 6000) : text;
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	private String resourceUrl() {
		String url = this.postgres.url();
		return url + (url.contains("?") ? "&" : "?") + "user=" + this.postgres.username()
				+ (this.postgres.password().isEmpty() ? "" : "&password=" + this.postgres.password());
	}

	private Connection resourceConnection() throws SQLException {
		return DriverManager.getConnection(this.postgres.url(), this.postgres.username(), this.postgres.password());
	}

	@Override
	public void close() throws Exception {
		for (Process process : this.workers.values()) {
			if (process.isAlive()) {
				// a paused child must be resumed to die of its closed input; SIGKILL
				// works either way
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		try (Connection con = resourceConnection();
				PreparedStatement deleteWrites = con.prepareStatement("DELETE FROM fault_write WHERE run = ?");
				PreparedStatement deleteRow = con.prepareStatement("DELETE FROM fault_resource WHERE run = ?")) {
			deleteWrites.setString(1, this.run);
			deleteWrites.executeUpdate();
			deleteRow.setString(1, this.run);
			deleteRow.executeUpdate();
		}
		FileSystemUtils.deleteRecursively(this.dir);
	}

}
