package dev.distlock.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The subjects by their names in {@code results.json}, and which of them this build can
 * run (a distlock backend exists once its provider class is on the classpath).
 * {@code main} prints the runnable ones, one a line, for {@code run.sh}.
 */
public final class Subjects {

	/**
	 * Every subject, in report order, with the classes (comma-separated) that must exist
	 * for it to run.
	 */
	static final Map<String, String> REQUIRES = new LinkedHashMap<>();

	static {
		REQUIRES.put("ceiling-lettuce", "io.lettuce.core.RedisClient");
		REQUIRES.put("distlock-redis-template", "dev.distlock.redis.RedisLockProvider");
		REQUIRES.put("distlock-redis-annotation",
				"dev.distlock.redis.RedisLockProvider,dev.distlock.annotation.DistributedLock");
		// distlock.redis.release-mode=async: Boot ignores the property until the Redis
		// backend reads it
		REQUIRES.put("distlock-redis-async-release",
				"dev.distlock.redis.RedisLockProvider,dev.distlock.annotation.DistributedLock");
		REQUIRES.put("distlock-redisson", "dev.distlock.redisson.RedissonLockProvider");
		REQUIRES.put("redisson-rlock", "org.redisson.api.RLock");
		REQUIRES.put("si-redis-spin", "org.springframework.integration.redis.util.RedisLockRegistry");
		REQUIRES.put("si-redis-pubsub", "org.springframework.integration.redis.util.RedisLockRegistry");
		REQUIRES.put("lock4j", "com.baomidou.lock.LockTemplate");
		REQUIRES.put("distlock-zookeeper", "dev.distlock.zookeeper.ZooKeeperLockProvider");
		REQUIRES.put("curator-mutex", "org.apache.curator.framework.recipes.locks.InterProcessMutex");
		REQUIRES.put("distlock-etcd", "dev.distlock.etcd.EtcdLockProvider");
		REQUIRES.put("jetcd-lock", "io.etcd.jetcd.Lock");
		REQUIRES.put("distlock-jdbc-postgres", "dev.distlock.jdbc.JdbcLockProvider");
		REQUIRES.put("si-jdbc-postgres", "org.springframework.integration.jdbc.lock.JdbcLockRegistry");
		REQUIRES.put("distlock-local-annotation", "dev.distlock.annotation.DistributedLock");
		REQUIRES.put("distlock-local-template", "dev.distlock.local.LocalLockProvider");
		REQUIRES.put("plain-call", "dev.distlock.bench.Work");
		// diagnostics: where the time between the ceiling and distlock goes
		REQUIRES.put("diag-sdr-scripts", "org.springframework.data.redis.core.StringRedisTemplate");
		REQUIRES.put("diag-redis-provider", "dev.distlock.redis.RedisLockProvider");
		REQUIRES.put("diag-sdr-scripts-exposed", "org.springframework.data.redis.core.StringRedisTemplate");
		REQUIRES.put("diag-redis-template-plain-client", "dev.distlock.redis.RedisLockProvider");
	}

	private Subjects() {
	}

	/**
	 * Starts a subject.
	 * @param name its name
	 * @param config servers and run id
	 * @return the subject, to close after use
	 * @throws Exception if it could not start
	 */
	public static Subject open(String name, BenchConfig config) throws Exception {
		return switch (name) {
			case "distlock-redis-template", "distlock-zookeeper", "distlock-jdbc-postgres", "distlock-local-template" ->
				openDistlock(name, config, Map.of());
			case "ceiling-lettuce" -> new LettuceCeiling(config);
			case "distlock-redis-annotation" -> distlockRedis(config, true, Map.of());
			case "distlock-redis-async-release" ->
				distlockRedis(config, true, Map.of("distlock.redis.release-mode", "async"));
			case "distlock-redisson" ->
				new Distlock(config, "redisson", Map.of("bench.redisson.address", config.redisUri()), false,
						redisCleanup(config), RedissonClientConfiguration.class);
			case "redisson-rlock" -> new RedissonRLock(config);
			case "si-redis-spin" -> new SpringIntegrationRedis(config, RedisLockType.SPIN_LOCK);
			case "si-redis-pubsub" -> new SpringIntegrationRedis(config, RedisLockType.PUB_SUB_LOCK);
			case "lock4j" -> new Lock4jSubject(config);
			case "curator-mutex" -> new CuratorMutex(config);
			case "distlock-etcd" -> distlockEtcd(config);
			case "jetcd-lock" -> new JetcdLock(config);
			case "si-jdbc-postgres" -> new SpringIntegrationJdbc(config);
			case "distlock-local-annotation" -> new Distlock(config, "local", Map.of(), true, (runId) -> () -> {
			});
			case "plain-call" -> new PlainCall();
			case "diag-sdr-scripts" -> new SpringDataRedisScripts(config, false);
			case "diag-sdr-scripts-exposed" -> new SpringDataRedisScripts(config, true);
			case "diag-redis-provider" -> new RedisProviderDirect(config);
			case "diag-redis-template-plain-client" -> new Distlock(config, "redis",
					Map.of("bench.redis.host", config.redisHost(), "bench.redis.port", config.redisPort()), false,
					redisCleanup(config), PlainLettuceConfiguration.class);
			default -> throw new IllegalArgumentException("Unknown or not yet wired subject '" + name + "'");
		};
	}

	/**
	 * Starts distlock's {@code LockTemplate} subject of one backend with extra properties
	 * on top of the subject's own (the scaling benchmark's watchdog lease and interval).
	 * @param name {@code distlock-redis-template}, {@code distlock-zookeeper},
	 * {@code distlock-jdbc-postgres} or {@code distlock-local-template}
	 * @param config servers and run id
	 * @param extra properties added to the application's
	 * @return the subject, to close after use
	 * @throws Exception if it could not start
	 */
	static Distlock openDistlock(String name, BenchConfig config, Map<String, Object> extra) throws Exception {
		return switch (name) {
			case "distlock-redis-template" -> distlockRedis(config, false, extra);
			case "distlock-zookeeper" -> distlockZooKeeper(config, extra);
			case "distlock-jdbc-postgres" -> distlockJdbc(config, extra);
			case "distlock-local-template" -> new Distlock(config, "local", extra, false, (runId) -> () -> {
			});
			default -> throw new IllegalArgumentException("'" + name + "' is not a distlock LockTemplate subject");
		};
	}

	private static Distlock distlockRedis(BenchConfig config, boolean annotated, Map<String, Object> extra)
			throws Exception {
		Map<String, Object> properties = new HashMap<>(extra);
		properties.put("spring.data.redis.host", config.redisHost());
		properties.put("spring.data.redis.port", config.redisPort());
		return new Distlock(config, "redis", properties, annotated, redisCleanup(config));
	}

	private static Distlock distlockZooKeeper(BenchConfig config, Map<String, Object> extra) throws Exception {
		ZooKeeperServer server = ZooKeeperServer.start(config);
		try {
			Map<String, Object> properties = new HashMap<>(extra);
			properties.put("distlock.zookeeper.connect-string", server.connectString());
			properties.put("distlock.zookeeper.base-path", "/bench-" + config.runId());
			return new Distlock(config, "zookeeper", properties, false, (runId) -> server);
		}
		catch (Exception | Error ex) {
			server.close();
			throw ex;
		}
	}

	private static Subject distlockEtcd(BenchConfig config) throws Exception {
		EtcdServer server = EtcdServer.start();
		try {
			return new Distlock(config, "etcd", Map.of("distlock.etcd.endpoints", server.endpoints(),
					"distlock.etcd.root", "/bench-" + config.runId()), false, (runId) -> server);
		}
		catch (Exception | Error ex) {
			server.close();
			throw ex;
		}
	}

	private static Distlock distlockJdbc(BenchConfig config, Map<String, Object> extra) throws Exception {
		Map<String, Object> properties = new HashMap<>(extra);
		properties.put("spring.datasource.url", config.pgUrl());
		properties.put("spring.datasource.username", config.pgUser());
		properties.put("spring.datasource.password", config.pgPassword());
		properties.put("spring.datasource.hikari.maximum-pool-size", 10);
		properties.put("distlock.jdbc.table-name", DistlockJdbcTable.NAME);
		properties.put("distlock.jdbc.initialize-schema", "always");
		// the two processes of a handoff may both create the table; one of them loses
		// that race harmlessly
		properties.put("distlock.jdbc.continue-on-error", true);
		Distlock subject = new Distlock(config, "jdbc", properties, false,
				(runId) -> () -> DistlockJdbcTable.delete(config, runId));
		// the table exists once the application has started
		Postgres.vacuum(config, DistlockJdbcTable.NAME);
		return subject;
	}

	private static Function<String, AutoCloseable> redisCleanup(BenchConfig config) {
		return (runId) -> () -> RedisKeys.deleteMatching(config, "*" + runId + "*");
	}

	/**
	 * The subjects this build can run.
	 * @return their names
	 */
	public static List<String> available() {
		return REQUIRES.entrySet()
			.stream()
			.filter((entry) -> Arrays.stream(entry.getValue().split(",")).allMatch(Subjects::isPresent))
			.map(Map.Entry::getKey)
			.toList();
	}

	private static boolean isPresent(String className) {
		try {
			Class.forName(className, false, Subjects.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * Prints the runnable subjects, one a line.
	 * @param args unused
	 */
	public static void main(String[] args) {
		available().forEach(System.out::println);
	}

}
