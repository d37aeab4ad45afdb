package dev.distlock.redis.autoconfigure;

import java.time.Duration;

import dev.distlock.redis.RedisReleaseMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the {@code redis} backend
 * ({@link dev.distlock.redis.RedisLockProvider}), under {@code distlock.redis.*}. The
 * connection itself is Spring Boot's ({@code spring.data.redis.*}).
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock.redis")
public class RedisLockProperties {

	/**
	 * Whether to register this backend beside the default one; unset means only when
	 * distlock.provider names it or it is the only backend.
	 */
	private @Nullable Boolean enabled;

	/**
	 * How long a FAIR waiter's queue place, or a waiting writer's claim on new readers,
	 * outlives its last attempt: a waiter that died blocks the others at most this long.
	 * Must be at least twice distlock.wait.fallback-poll and distlock.wait.max-backoff,
	 * since waiters renew their place when they try again.
	 */
	private Duration waiterTimeout = Duration.ofSeconds(5);

	/**
	 * Whether writers waiting for readers to leave hold back new readers, so that a
	 * steady stream of readers cannot starve them.
	 */
	private boolean writerPreference = true;

	/**
	 * How long the fencing counter of a key is kept after its last acquisition. Tokens
	 * keep increasing after it expires unless the Redis server's clock stepped back by
	 * more than this; each key locked within it costs one counter (about 150 bytes) of
	 * Redis memory.
	 */
	private Duration fenceRetention = Duration.ofHours(1);

	/**
	 * Whether a release waits for Redis' reply (sync) or returns once it is written to
	 * the connection (async; needs Lettuce, other drivers wait). Async saves a round trip
	 * per critical section; a failed release is then logged and counted, and its lock
	 * stays taken until its lease ends.
	 */
	private RedisReleaseMode releaseMode = RedisReleaseMode.SYNC;

	/**
	 * How many replicas must acknowledge a grant (WAIT after the acquire script) before
	 * it counts; fewer within replica-timeout fail the acquisition. Protects a lock from
	 * a failover to a replica that never saw it. 0 does not wait. Standalone and Sentinel
	 * through Lettuce only.
	 */
	private int waitForReplicas;

	/**
	 * How long an acquisition waits for wait-for-replicas replicas to acknowledge its
	 * grant.
	 */
	private Duration replicaTimeout = Duration.ofMillis(100);

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getWaiterTimeout() {
		return this.waiterTimeout;
	}

	public void setWaiterTimeout(Duration waiterTimeout) {
		this.waiterTimeout = waiterTimeout;
	}

	public boolean isWriterPreference() {
		return this.writerPreference;
	}

	public void setWriterPreference(boolean writerPreference) {
		this.writerPreference = writerPreference;
	}

	public RedisReleaseMode getReleaseMode() {
		return this.releaseMode;
	}

	public void setReleaseMode(RedisReleaseMode releaseMode) {
		this.releaseMode = releaseMode;
	}

	public int getWaitForReplicas() {
		return this.waitForReplicas;
	}

	public void setWaitForReplicas(int waitForReplicas) {
		this.waitForReplicas = waitForReplicas;
	}

	public Duration getReplicaTimeout() {
		return this.replicaTimeout;
	}

	public void setReplicaTimeout(Duration replicaTimeout) {
		this.replicaTimeout = replicaTimeout;
	}

	public Duration getFenceRetention() {
		return this.fenceRetention;
	}

	public void setFenceRetention(Duration fenceRetention) {
		this.fenceRetention = fenceRetention;
	}

}
