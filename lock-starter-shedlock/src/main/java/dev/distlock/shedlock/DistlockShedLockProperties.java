package dev.distlock.shedlock;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} on
 * distlock ({@link DistlockLockProvider}), under {@code distlock.shedlock.*}.
 *
 * @since 0.7.0
 */
@ConfigurationProperties("distlock.shedlock")
public class DistlockShedLockProperties {

	/**
	 * Whether to provide a ShedLock LockProvider on the LockTemplate when the application
	 * defines none.
	 */
	private boolean enabled = true;

	/**
	 * Backend of ShedLock's locks, one of the lock template's providers: local, redis,
	 * redisson, redisson-quorum, jdbc, zookeeper or etcd. Unset means the template's
	 * default provider (distlock.provider).
	 */
	private @Nullable String provider;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getProvider() {
		return this.provider;
	}

	public void setProvider(@Nullable String provider) {
		this.provider = provider;
	}

}
