package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of distlock's countdown latches
 * ({@link dev.distlock.core.LatchTemplate}), under {@code distlock.latch.*}.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("distlock.latch")
public class DistlockLatchProperties {

	/**
	 * Whether to provide a LatchTemplate on the lock backend(s) that can hold latches.
	 */
	private boolean enabled = true;

	/**
	 * How long a latch lives at most after its count was set, when trySetCount is given
	 * no expiry, so that abandoned latches do not pile up in the backend. Must be
	 * positive.
	 */
	private Duration expiry = Duration.ofHours(1);

	/**
	 * Backend of the latches: local, redis, redisson, jdbc, zookeeper or etcd. Unset
	 * means the default lock provider's backend, or the only one that holds latches.
	 */
	private @Nullable String provider;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getExpiry() {
		return this.expiry;
	}

	public void setExpiry(Duration expiry) {
		this.expiry = expiry;
	}

	public @Nullable String getProvider() {
		return this.provider;
	}

	public void setProvider(@Nullable String provider) {
		this.provider = provider;
	}

}
