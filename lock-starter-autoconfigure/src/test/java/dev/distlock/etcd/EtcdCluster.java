package dev.distlock.etcd;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

import dev.distlock.test.TestServers;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.ClientInterceptor;

import org.springframework.util.FileSystemUtils;

/**
 * Real {@code etcd} processes a test starts on free loopback ports, each with a data
 * directory of its own under a temporary directory: one member for the contract tests
 * (shared per test JVM, see {@link #shared()}), three for the fault tests. Members can be
 * killed (SIGKILL), restarted on their data, paused (SIGSTOP) and resumed. A missing
 * {@code etcd} binary fails with a message that says what to install.
 */
public final class EtcdCluster implements AutoCloseable {

	private static volatile EtcdCluster shared;

	private final Path dir;

	private final List<Member> members = new ArrayList<>();

	private EtcdCluster(Path dir) {
		this.dir = dir;
	}

	/**
	 * One member shared by every test of this JVM, stopped when the JVM exits.
	 * @return the running member
	 */
	public static synchronized EtcdCluster shared() {
		if (shared == null) {
			EtcdCluster cluster = start(1);
			Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "etcd-test-shutdown"));
			shared = cluster;
		}
		return shared;
	}

	/**
	 * Starts a cluster and waits until every member is healthy.
	 * @param size the number of members
	 * @return the running cluster
	 */
	public static EtcdCluster start(int size) {
		Path binary = binary();
		try {
			Path base = Files.isDirectory(Paths.get("/dev/shm")) ? Paths.get("/dev/shm") : null;
			Path dir = (base != null) ? Files.createTempDirectory(base, "distlock-etcd")
					: Files.createTempDirectory("distlock-etcd");
			EtcdCluster cluster = new EtcdCluster(dir);
			StringJoiner initial = new StringJoiner(",");
			for (int i = 0; i < size; i++) {
				Member member = new Member(cluster, "m" + i, TestServers.freePort(), TestServers.freePort());
				cluster.members.add(member);
				initial.add(member.name + "=" + member.peerUrl());
			}
			for (Member member : cluster.members) {
				member.initialCluster = initial.toString();
				member.binary = binary;
				member.start();
			}
			for (Member member : cluster.members) {
				member.awaitHealthy(Duration.ofSeconds(30));
			}
			return cluster;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start etcd", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting etcd", ex);
		}
	}

	/** The {@code etcd} executable. */
	static Path binary() {
		List<Path> candidates = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			for (String entry : path.split(File.pathSeparator)) {
				if (!entry.isBlank()) {
					candidates.add(Paths.get(entry, "etcd"));
				}
			}
		}
		candidates.add(Paths.get("/usr/bin/etcd"));
		candidates.add(Paths.get("/usr/local/bin/etcd"));
		for (Path candidate : candidates) {
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		throw new IllegalStateException("etcd not found on PATH or in /usr/bin; install it with: "
				+ "apt-get install etcd-server (the etcd tests start their own etcd processes)");
	}

	public List<Member> members() {
		return this.members;
	}

	public Member member(int index) {
		return this.members.get(index);
	}

	/**
	 * The client URLs of every member, separated by commas.
	 * @return the endpoints
	 */
	public String endpoints() {
		StringJoiner joiner = new StringJoiner(",");
		this.members.forEach((member) -> joiner.add(member.clientUrl()));
		return joiner.toString();
	}

	/**
	 * A new client on every member, with short retries; the caller closes it.
	 * @return the client
	 */
	public Client client() {
		return clientBuilder().build();
	}

	/**
	 * A new client on every member, with short retries and the given interceptors on its
	 * calls; the caller closes it.
	 * @param interceptor the first interceptor
	 * @param more further interceptors
	 * @return the client
	 */
	public Client client(ClientInterceptor interceptor, ClientInterceptor... more) {
		return clientBuilder().interceptor(interceptor, more).build();
	}

	private ClientBuilder clientBuilder() {
		return Client.builder()
			.endpoints(this.members.stream().map(Member::clientUrl).toArray(String[]::new))
			.connectTimeout(Duration.ofSeconds(2))
			.retryMaxDuration(Duration.ofSeconds(2))
			.keepaliveTime(Duration.ofSeconds(2))
			.keepaliveTimeout(Duration.ofSeconds(1));
	}

	/**
	 * The member that is the leader now, by each member's own status.
	 * @return the leader
	 */
	public Member leader() throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			for (Member member : this.members) {
				if (member.isLeader()) {
					return member;
				}
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("No etcd member is the leader after 30 s");
	}

	@Override
	public void close() {
		for (Member member : this.members) {
			member.kill();
		}
		FileSystemUtils.deleteRecursively(this.dir.toFile());
	}

	/** One etcd process of the cluster. */
	public static final class Member {

		private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

		private final EtcdCluster cluster;

		private final String name;

		private final int clientPort;

		private final int peerPort;

		private String initialCluster = "";

		private Path binary = Paths.get("etcd");

		private volatile Process process;

		Member(EtcdCluster cluster, String name, int clientPort, int peerPort) {
			this.cluster = cluster;
			this.name = name;
			this.clientPort = clientPort;
			this.peerPort = peerPort;
		}

		public String name() {
			return this.name;
		}

		public String clientUrl() {
			return "http://127.0.0.1:" + this.clientPort;
		}

		String peerUrl() {
			return "http://127.0.0.1:" + this.peerPort;
		}

		void start() throws IOException {
			// short heartbeats: a 1 s lease is the servers' minimum then, and a new
			// leader is elected within a second
			List<String> command = List.of(this.binary.toString(), "--name", this.name, "--data-dir",
					this.cluster.dir.resolve(this.name).toString(), "--listen-client-urls", clientUrl(),
					"--advertise-client-urls", clientUrl(), "--listen-peer-urls", peerUrl(),
					"--initial-advertise-peer-urls", peerUrl(), "--initial-cluster", this.initialCluster,
					"--initial-cluster-state", "new", "--initial-cluster-token",
					this.cluster.dir.getFileName().toString(), "--heartbeat-interval", "50", "--election-timeout",
					"500", "--log-level", "warn", "--logger", "zap");
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
				.start();
		}

		private Path log() {
			return this.cluster.dir.resolve(this.name + ".log");
		}

		/** Waits until the member reports itself healthy (it has a leader). */
		void awaitHealthy(Duration timeout) throws InterruptedException {
			long deadline = System.nanoTime() + timeout.toNanos();
			String last = "";
			while (System.nanoTime() < deadline) {
				if (!this.process.isAlive()) {
					throw new IllegalStateException("etcd " + this.name + " exited: " + logText());
				}
				last = get("/health");
				if (last.contains("\"health\":\"true\"")) {
					return;
				}
				Thread.sleep(100);
			}
			throw new IllegalStateException("etcd " + this.name + " not healthy within " + timeout + " (last: " + last
					+ "); log: " + logText());
		}

		boolean isLeader() {
			String metrics = get("/metrics");
			return metrics.contains("\netcd_server_is_leader 1");
		}

		private String get(String path) {
			try {
				HttpResponse<String> response = http.send(
						HttpRequest.newBuilder(URI.create(clientUrl() + path)).timeout(Duration.ofSeconds(2)).build(),
						HttpResponse.BodyHandlers.ofString());
				return response.body();
			}
			catch (IOException ex) {
				return ex.toString();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return ex.toString();
			}
		}

		/** Kills the member at once (SIGKILL), as a crash would; its data stays. */
		public void kill() {
			Process current = this.process;
			if (current != null && current.isAlive()) {
				resume();
				current.destroyForcibly();
				try {
					current.waitFor(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		/** Starts a killed member again on its data, and waits until it is healthy. */
		public void restart() throws IOException, InterruptedException {
			start();
			awaitHealthy(Duration.ofSeconds(30));
		}

		/**
		 * Stops the member's process (SIGSTOP): it is cut off, its sockets stay open and
		 * silent.
		 */
		public void pause() throws IOException, InterruptedException {
			signal("STOP");
		}

		/** Resumes a paused member (SIGCONT). */
		public void resume() {
			try {
				signal("CONT");
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		private void signal(String name) throws IOException, InterruptedException {
			Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(this.process.pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + name + " of etcd " + this.name + " failed");
			}
		}

		private String logText() {
			try {
				return Files.readString(log(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				return "(no log: " + ex + ")";
			}
		}

		@Override
		public String toString() {
			return "etcd " + this.name + " at " + clientUrl();
		}

	}

}
