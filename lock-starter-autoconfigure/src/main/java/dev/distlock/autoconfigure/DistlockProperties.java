package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.core.LockSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

/**
 * Configuration of distlock's core, under {@code distlock.*}. Backends have their own
 * groups ({@code distlock.redis.*}, {@code distlock.jdbc.*}, ...).
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock")
public class DistlockProperties {

	/**
	 * Backend used when a lock names none: local, redis, redisson, redisson-quorum, jdbc
	 * or zookeeper. Optional when exactly one backend is available.
	 */
	private @Nullable String provider;

	/**
	 * Prefix of every lock key as stored in the backend.
	 */
	private String keyPrefix = "lock:";

	/**
	 * Lease of locks that set none. When unset, locks are held until released and the
	 * watchdog renews them.
	 */
	private @Nullable Duration defaultLease;

	/**
	 * How long to wait for a lock that sets no wait time. Zero tries once.
	 */
	private Duration defaultWait = Duration.ofSeconds(10);

	/**
	 * What happens to the thread running guarded code when its lease is lost.
	 */
	private LockSettings.LeaseLostAction onLeaseLost = LockSettings.LeaseLostAction.NOTIFY;

	/**
	 * Longest time one backend call may take when nothing tighter bounds it (a release, a
	 * renewal, a health check); an acquisition's calls end by its wait's deadline plus
	 * this. Bounds distlock's own calls whatever the client library's timeouts are; a
	 * shorter client timeout still applies.
	 */
	private Duration callTimeout = Duration.ofSeconds(1);

	private final Watchdog watchdog = new Watchdog();

	private final Wait wait = new Wait();

	private final Aop aop = new Aop();

	public @Nullable String getProvider() {
		return this.provider;
	}

	public void setProvider(@Nullable String provider) {
		this.provider = provider;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public @Nullable Duration getDefaultLease() {
		return this.defaultLease;
	}

	public void setDefaultLease(@Nullable Duration defaultLease) {
		this.defaultLease = defaultLease;
	}

	public Duration getDefaultWait() {
		return this.defaultWait;
	}

	public void setDefaultWait(Duration defaultWait) {
		this.defaultWait = defaultWait;
	}

	public LockSettings.LeaseLostAction getOnLeaseLost() {
		return this.onLeaseLost;
	}

	public void setOnLeaseLost(LockSettings.LeaseLostAction onLeaseLost) {
		this.onLeaseLost = onLeaseLost;
	}

	public Watchdog getWatchdog() {
		return this.watchdog;
	}

	public Wait getWait() {
		return this.wait;
	}

	public Duration getCallTimeout() {
		return this.callTimeout;
	}

	public void setCallTimeout(Duration callTimeout) {
		this.callTimeout = callTimeout;
	}

	public Aop getAop() {
		return this.aop;
	}

	/**
	 * The settings these properties describe.
	 * @return the settings
	 * @throws dev.distlock.core.LockConfigurationException if a value is out of range
	 */
	public LockSettings toSettings() {
		return LockSettings.defaults()
			.withKeyPrefix(this.keyPrefix)
			.withDefaultLease(this.defaultLease)
			.withDefaultWait(this.defaultWait)
			.withWatchdog(this.watchdog.getLease(), this.watchdog.getInterval())
			.withWatchdogThreads(this.watchdog.getThreads())
			.withOnLeaseLost(this.onLeaseLost)
			.withBackoff(this.wait.getMinBackoff(), this.wait.getMaxBackoff(), this.wait.getFallbackPoll())
			.withCallTimeout(this.callTimeout);
	}

	/**
	 * Lease renewal of locks held until released.
	 */
	public static class Watchdog {

		/**
		 * Backend lease of locks held until released: how long a crashed holder blocks
		 * the key.
		 */
		private Duration lease = Duration.ofSeconds(30);

		/**
		 * Renewal interval. Defaults to a third of the lease.
		 */
		private @Nullable Duration interval;

		/**
		 * Threads of the shared renewal scheduler.
		 */
		private int threads = 1;

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public @Nullable Duration getInterval() {
			return this.interval;
		}

		public void setInterval(@Nullable Duration interval) {
			this.interval = interval;
		}

		public int getThreads() {
			return this.threads;
		}

		public void setThreads(int threads) {
			this.threads = threads;
		}

	}

	/**
	 * How waiters poll when release notifications are missing or lost.
	 */
	public static class Wait {

		/**
		 * First poll interval of a waiter without release notifications; it doubles up to
		 * max-backoff.
		 */
		private Duration minBackoff = Duration.ofMillis(5);

		/**
		 * Longest poll interval of a waiter without release notifications.
		 */
		private Duration maxBackoff = Duration.ofMillis(200);

		/**
		 * Longest sleep of a waiter that has release notifications: the most a lost
		 * notification can cost.
		 */
		private Duration fallbackPoll = Duration.ofMillis(500);

		public Duration getMinBackoff() {
			return this.minBackoff;
		}

		public void setMinBackoff(Duration minBackoff) {
			this.minBackoff = minBackoff;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public Duration getFallbackPoll() {
			return this.fallbackPoll;
		}

		public void setFallbackPoll(Duration fallbackPoll) {
			this.fallbackPoll = fallbackPoll;
		}

	}

	/**
	 * The {@code @DistributedLock} advisor.
	 */
	public static class Aop {

		/**
		 * Whether to apply @DistributedLock to Spring beans.
		 */
		private boolean enabled = true;

		/**
		 * Order of the advisor. The default puts it just outside @Transactional, so a
		 * lock is released after commit.
		 */
		private int order = Ordered.LOWEST_PRECEDENCE - 1;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

	}

}
