package dev.distlock.zookeeper.autoconfigure;

import java.time.Duration;

import jakarta.validation.Valid;
import jakarta.validation.constraints.PositiveOrZero;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of the ZooKeeper backend, under {@code distlock.zookeeper.*}. The
 * connection settings apply only when distlock creates its own Curator client, that is
 * when there is no {@code CuratorFramework} bean and {@code connect-string} is set.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock.zookeeper")
@Validated
public class ZooKeeperLockProperties {

	/**
	 * Whether to register this backend beside the default one; unset means only when
	 * distlock.provider names it or it is the only backend.
	 */
	private @Nullable Boolean enabled;

	/**
	 * ZooKeeper servers to connect to, as host:port pairs separated by commas, optionally
	 * followed by a chroot path. Used only when the application defines no
	 * CuratorFramework bean.
	 */
	private @Nullable String connectString;

	/**
	 * Node under which every lock lives.
	 */
	private String basePath = "/distlock";

	/**
	 * Session timeout: how long a crashed holder keeps its locks. The servers bound it
	 * (by default between 2 and 20 ticks).
	 */
	private Duration sessionTimeout = Duration.ofSeconds(30);

	/**
	 * How long a call waits for a connection; an acquire fails at the latest this long
	 * after its wait time ends, retries included.
	 */
	private Duration connectionTimeout = Duration.ofSeconds(15);

	@Valid
	private final Retry retry = new Retry();

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getConnectString() {
		return this.connectString;
	}

	public void setConnectString(@Nullable String connectString) {
		this.connectString = connectString;
	}

	public String getBasePath() {
		return this.basePath;
	}

	public void setBasePath(String basePath) {
		this.basePath = basePath;
	}

	public Duration getSessionTimeout() {
		return this.sessionTimeout;
	}

	public void setSessionTimeout(Duration sessionTimeout) {
		this.sessionTimeout = sessionTimeout;
	}

	public Duration getConnectionTimeout() {
		return this.connectionTimeout;
	}

	public void setConnectionTimeout(Duration connectionTimeout) {
		this.connectionTimeout = connectionTimeout;
	}

	public Retry getRetry() {
		return this.retry;
	}

	/**
	 * Retries of ZooKeeper operations after a connection loss (exponential backoff),
	 * never past an acquire's bound of its wait time plus the connection timeout.
	 */
	public static class Retry {

		/**
		 * Sleep before the first retry; it grows exponentially with random jitter.
		 */
		private Duration baseSleep = Duration.ofMillis(200);

		/**
		 * Longest sleep between retries.
		 */
		private Duration maxSleep = Duration.ofSeconds(5);

		/**
		 * Retries of one operation before it fails.
		 */
		@PositiveOrZero
		private int maxRetries = 3;

		public Duration getBaseSleep() {
			return this.baseSleep;
		}

		public void setBaseSleep(Duration baseSleep) {
			this.baseSleep = baseSleep;
		}

		public Duration getMaxSleep() {
			return this.maxSleep;
		}

		public void setMaxSleep(Duration maxSleep) {
			this.maxSleep = maxSleep;
		}

		public int getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(int maxRetries) {
			this.maxRetries = maxRetries;
		}

	}

}
