package dev.distlock.redisson.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Redisson backends, under {@code distlock.redisson.*}: the
 * {@code redisson} provider on the application's {@code RedissonClient}, and the
 * {@code redisson-quorum} provider over {@link #getNodes() nodes}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock.redisson")
public class RedissonLockProperties {

	/**
	 * Whether to register this backend beside the default one; unset means only when
	 * distlock.provider names it or it is the only backend.
	 */
	private @Nullable Boolean enabled;

	/**
	 * How long a key's fencing counter (and a semaphore nobody uses) stays in Redis after
	 * the key's last grant or renewal; never less than the lease of a lock that outlives
	 * it. Tokens never fall below the Redis server's clock in microseconds, so the
	 * counter only protects against that clock stepping back by up to this much; each key
	 * locked within it costs about 90 bytes. Applies to redisson and redisson-quorum.
	 */
	private Duration fenceRetention = Duration.ofHours(1);

	/**
	 * Addresses of independent Redis servers (redis://host:port, or rediss:// for TLS)
	 * for the redisson-quorum provider, which holds a lock on a majority of them. They
	 * must not be replicas of one another; an odd number, such as 3 or 5. Setting them
	 * registers the redisson-quorum provider (turn it off or on explicitly with
	 * distlock.redisson-quorum.enabled).
	 */
	private List<String> nodes = new ArrayList<>();

	/**
	 * How long each quorum node may take to connect and to answer one command. Keep it
	 * well below the shortest lease: a slower node counts as failed.
	 */
	private Duration nodeTimeout = Duration.ofMillis(200);

	/**
	 * Username of the quorum nodes.
	 */
	private @Nullable String username;

	/**
	 * Password of the quorum nodes.
	 */
	private @Nullable String password;

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getFenceRetention() {
		return this.fenceRetention;
	}

	public void setFenceRetention(Duration fenceRetention) {
		this.fenceRetention = fenceRetention;
	}

	public List<String> getNodes() {
		return this.nodes;
	}

	public void setNodes(List<String> nodes) {
		this.nodes = nodes;
	}

	public Duration getNodeTimeout() {
		return this.nodeTimeout;
	}

	public void setNodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = nodeTimeout;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

}
