package dev.distlock.test;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Where the tests find their real backend servers.
 * <p>
 * For each server (computed once per JVM and cached): if a TCP connect to the configured
 * address succeeds within one second it is used; otherwise, if Docker is available, a
 * Testcontainers container is started and its mapped address is used; otherwise an
 * {@link IllegalStateException} says what to start. Tests never skip.
 * <ul>
 * <li>Redis: {@code redis://127.0.0.1:6379}, override with
 * {@code DISTLOCK_TEST_REDIS_URL}.</li>
 * <li>PostgreSQL: {@code jdbc:postgresql://127.0.0.1:5432/test}, user {@code postgres},
 * no password; override with {@code DISTLOCK_TEST_POSTGRES_URL} (+
 * {@code DISTLOCK_TEST_POSTGRES_USER} / {@code _PASSWORD}, or
 * {@code user=}/{@code password=} in the URL's query).</li>
 * <li>MariaDB: {@code jdbc:mariadb://127.0.0.1:3306/test?useAffectedRows=true}, user
 * {@code root}, empty password; override with {@code DISTLOCK_TEST_MARIADB_URL} (+
 * {@code DISTLOCK_TEST_MARIADB_USER} / {@code _PASSWORD}).</li>
 * </ul>
 * When an override is set, that address is used or the call fails; Docker is only a
 * fallback for the defaults.
 */
public final class TestServers {

	/** A JDBC server to connect to. */
	public record JdbcServer(String url, String username, String password) {

		@Override
		public String toString() {
			return "JdbcServer[url=" + this.url + ", username=" + this.username + "]";
		}

	}

	static final String REDIS_ENV = "DISTLOCK_TEST_REDIS_URL";

	static final String POSTGRES_ENV = "DISTLOCK_TEST_POSTGRES_URL";

	static final String MARIADB_ENV = "DISTLOCK_TEST_MARIADB_URL";

	static final String REDIS_START = "redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save \"\" "
			+ "--appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log";

	static final String POSTGRES_START = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start";

	static final String MARIADB_START = "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd";

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

	private static final Cached<URI> REDIS = new Cached<>(TestServers::findRedis);

	private static final Cached<JdbcServer> POSTGRES = new Cached<>(TestServers::findPostgres);

	private static final Cached<JdbcServer> MARIADB = new Cached<>(TestServers::findMariadb);

	private TestServers() {
	}

	/** The Redis server to use, e.g. {@code redis://127.0.0.1:6379}. */
	public static URI redisUri() {
		return REDIS.get();
	}

	/** The PostgreSQL server to use (database {@code test}). */
	public static JdbcServer postgres() {
		return POSTGRES.get();
	}

	/**
	 * The MariaDB server to use (database {@code test}, {@code useAffectedRows=true}).
	 */
	public static JdbcServer mariadb() {
		return MARIADB.get();
	}

	/** A TCP port that was free a moment ago on 127.0.0.1. */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress("127.0.0.1", 0));
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not find a free TCP port", ex);
		}
	}

	/**
	 * The {@code redis-server} executable, for tests that start their own Redis
	 * processes.
	 */
	public static Path redisServerBinary() {
		List<Path> candidates = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				if (!dir.isBlank()) {
					candidates.add(Paths.get(dir, "redis-server"));
				}
			}
		}
		candidates.add(Paths.get("/usr/bin/redis-server"));
		candidates.add(Paths.get("/usr/local/bin/redis-server"));
		for (Path candidate : candidates) {
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		throw new IllegalStateException("redis-server not found on PATH or in /usr/bin; install it with: "
				+ "apt-get install redis-server (tests that start their own Redis processes need it)");
	}

	// ---------------------------------------------------------------- Redis

	private static URI findRedis() {
		String override = env(REDIS_ENV);
		URI uri = URI.create((override != null) ? override : "redis://127.0.0.1:6379");
		String host = (uri.getHost() != null) ? uri.getHost() : "127.0.0.1";
		int port = (uri.getPort() > 0) ? uri.getPort() : 6379;
		if (reachable(host, port)) {
			return uri;
		}
		if (override == null && dockerAvailable()) {
			GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse("redis:7")).withExposedPorts(6379)
				.waitingFor(Wait.forListeningPort());
			redis.start();
			return URI.create("redis://" + redis.getHost() + ":" + redis.getMappedPort(6379));
		}
		throw unavailable("Redis", host + ":" + port, REDIS_ENV, override != null, REDIS_START);
	}

	// ---------------------------------------------------------------- PostgreSQL

	private static JdbcServer findPostgres() {
		JdbcServer server = jdbcFromEnv(POSTGRES_ENV,
				new JdbcServer("jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""));
		boolean overridden = env(POSTGRES_ENV) != null;
		InetSocketAddress address = hostPort(server.url(), 5432);
		if (reachable(address.getHostString(), address.getPort())) {
			return server;
		}
		if (!overridden && dockerAvailable()) {
			GenericContainer<?> postgres = new GenericContainer<>(DockerImageName.parse("postgres:16"))
				.withEnv("POSTGRES_HOST_AUTH_METHOD", "trust")
				.withEnv("POSTGRES_DB", "test")
				.withExposedPorts(5432)
				.waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*\\s", 2)
					.withStartupTimeout(Duration.ofMinutes(2)));
			postgres.start();
			return new JdbcServer(
					"jdbc:postgresql://" + postgres.getHost() + ":" + postgres.getMappedPort(5432) + "/test",
					"postgres", "");
		}
		throw unavailable("PostgreSQL", address.getHostString() + ":" + address.getPort(), POSTGRES_ENV, overridden,
				POSTGRES_START);
	}

	// ---------------------------------------------------------------- MariaDB

	private static JdbcServer findMariadb() {
		JdbcServer server = jdbcFromEnv(MARIADB_ENV,
				new JdbcServer("jdbc:mariadb://127.0.0.1:3306/test?useAffectedRows=true", "root", ""));
		boolean overridden = env(MARIADB_ENV) != null;
		InetSocketAddress address = hostPort(server.url(), 3306);
		if (reachable(address.getHostString(), address.getPort())) {
			return server;
		}
		if (!overridden && dockerAvailable()) {
			GenericContainer<?> mariadb = new GenericContainer<>(DockerImageName.parse("mariadb:10.11"))
				.withEnv("MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "1")
				.withEnv("MARIADB_DATABASE", "test")
				.withExposedPorts(3306)
				.waitingFor(Wait.forLogMessage(".*ready for connections.*\\s", 2)
					.withStartupTimeout(Duration.ofMinutes(2)));
			mariadb.start();
			return new JdbcServer("jdbc:mariadb://" + mariadb.getHost() + ":" + mariadb.getMappedPort(3306)
					+ "/test?useAffectedRows=true", "root", "");
		}
		throw unavailable("MariaDB", address.getHostString() + ":" + address.getPort(), MARIADB_ENV, overridden,
				MARIADB_START);
	}

	// ---------------------------------------------------------------- helpers

	private static JdbcServer jdbcFromEnv(String envName, JdbcServer defaults) {
		String url = env(envName);
		if (url == null) {
			return defaults;
		}
		Map<String, String> query = jdbcQuery(url);
		String user = firstNonNull(env(envName.replace("_URL", "_USER")), query.get("user"), defaults.username());
		String password = firstNonNull(env(envName.replace("_URL", "_PASSWORD")), query.get("password"),
				defaults.password());
		return new JdbcServer(url, user, password);
	}

	private static Map<String, String> jdbcQuery(String url) {
		Map<String, String> result = new LinkedHashMap<>();
		int q = url.indexOf('?');
		if (q < 0) {
			return result;
		}
		for (String pair : url.substring(q + 1).split("&")) {
			int eq = pair.indexOf('=');
			if (eq > 0) {
				result.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
			}
		}
		return result;
	}

	private static String decode(String value) {
		return URLDecoder.decode(value, StandardCharsets.UTF_8);
	}

	private static InetSocketAddress hostPort(String jdbcUrl, int defaultPort) {
		URI uri = URI.create(jdbcUrl.startsWith("jdbc:") ? jdbcUrl.substring("jdbc:".length()) : jdbcUrl);
		String host = (uri.getHost() != null) ? uri.getHost() : "127.0.0.1";
		int port = (uri.getPort() > 0) ? uri.getPort() : defaultPort;
		return InetSocketAddress.createUnresolved(host, port);
	}

	private static boolean reachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	private static IllegalStateException unavailable(String name, String address, String envName, boolean overridden,
			String startCommand) {
		String how = overridden ? "the address given by " + envName + " is not reachable"
				: "nothing listens there and Docker is not available for Testcontainers";
		return new IllegalStateException(name + " is not reachable at " + address + " (" + how + "). Start it with: "
				+ startCommand + "  (or run .ci/run, which starts the shared services), or point the tests at another "
				+ name + " server with the environment variable " + envName + ".");
	}

	private static String env(String name) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? null : value.trim();
	}

	@SafeVarargs
	private static <T> T firstNonNull(T... values) {
		for (T value : values) {
			if (value != null) {
				return value;
			}
		}
		return null;
	}

	/**
	 * Computes a value once; a failure is remembered and reported again on every later
	 * call.
	 */
	private static final class Cached<T> {

		private final Supplier<T> supplier;

		private T value;

		private RuntimeException failure;

		Cached(Supplier<T> supplier) {
			this.supplier = supplier;
		}

		synchronized T get() {
			if (this.value == null && this.failure == null) {
				try {
					this.value = this.supplier.get();
				}
				catch (RuntimeException ex) {
					this.failure = ex;
				}
			}
			if (this.failure != null) {
				throw new IllegalStateException(this.failure.getMessage(), this.failure);
			}
			return this.value;
		}

	}

}
