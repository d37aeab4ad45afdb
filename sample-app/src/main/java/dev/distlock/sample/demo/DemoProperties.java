package dev.distlock.sample.demo;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The contention demo's settings, {@code distlock.demo.*}. Setting {@code ops} on the
 * command line runs the demo at startup and exits.
 *
 * @param ops operations to run at startup; unset means no demo at startup
 * @param threads threads contending for the key
 * @param instances how many application instances the threads play, each with a
 * {@code LockTemplate} of its own (threads of one instance queue in the JVM and meet the
 * backend one at a time); unset means one per thread
 * @param key the key they contend for (before {@code distlock.key-prefix})
 * @param waitTime how long one operation waits for the lock before it counts as failed
 */
@ConfigurationProperties("distlock.demo")
public record DemoProperties(@Nullable Integer ops, @DefaultValue("8") int threads, @Nullable Integer instances,
		@DefaultValue("demo:counter") String key, @DefaultValue("30s") Duration waitTime) {

	/**
	 * Instances to play for the configured threads.
	 * @return {@code instances}, or {@code threads} when unset
	 */
	public int instancesOrThreads() {
		return (this.instances != null) ? this.instances : this.threads;
	}

}
