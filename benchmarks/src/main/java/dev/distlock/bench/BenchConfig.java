package dev.distlock.bench;

import java.time.Duration;
import java.util.UUID;

/**
 * Where the benchmark subjects find their servers, read from system properties so that
 * JMH forks and handoff children see the same values:
 * {@code bench.redis.host}/{@code bench.redis.port} (127.0.0.1:6379),
 * {@code bench.pg.url}/{@code bench.pg.user}/{@code bench.pg.password} (the {@code test}
 * database on 127.0.0.1:5432 as {@code postgres}), {@code bench.zk.connect} (unset: each
 * subject starts an in-process Curator {@code TestingServer}), and {@code bench.run.id}
 * (unset: a random one; the two processes of a handoff measurement share one). The run id
 * is part of every key, so runs never meet.
 *
 * @param redisHost Redis host
 * @param redisPort Redis port
 * @param pgUrl PostgreSQL JDBC URL
 * @param pgUser PostgreSQL user
 * @param pgPassword PostgreSQL password
 * @param zkConnect ZooKeeper connect string, or {@code null} for an in-process server
 * @param runId unique id of this run, part of every key
 */
public record BenchConfig(String redisHost, int redisPort, String pgUrl, String pgUser, String pgPassword,
		String zkConnect, String runId) {

	/**
	 * Lease of every acquisition: long enough never to expire during a benchmark, short
	 * enough to clean up.
	 */
	public static final Duration LEASE = Duration.ofSeconds(30);

	/** Wait of every acquisition: every subject blocks until it gets the lock. */
	public static final Duration WAIT = Duration.ofSeconds(30);

	/**
	 * Reads the configuration from system properties.
	 * @return the configuration
	 */
	public static BenchConfig fromSystemProperties() {
		return new BenchConfig(System.getProperty("bench.redis.host", "127.0.0.1"),
				Integer.getInteger("bench.redis.port", 6379),
				System.getProperty("bench.pg.url", "jdbc:postgresql://127.0.0.1:5432/test"),
				System.getProperty("bench.pg.user", "postgres"), System.getProperty("bench.pg.password", ""),
				System.getProperty("bench.zk.connect"),
				System.getProperty("bench.run.id", UUID.randomUUID().toString().substring(0, 8)));
	}

	/**
	 * The Redis URI.
	 * @return {@code redis://host:port}
	 */
	public String redisUri() {
		return "redis://" + this.redisHost + ":" + this.redisPort;
	}

}
