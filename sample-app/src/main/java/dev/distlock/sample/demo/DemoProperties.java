package dev.distlock.sample.demo;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The contention demo's settings, {@code distlock.demo.*}. Setting {@code ops} on the command line runs the demo at
 * startup and exits.
 *
 * @param ops operations to run at startup; unset means no demo at startup
 * @param threads threads contending for the key
 * @param key the key they contend for (before {@code distlock.key-prefix})
 * @param waitTime how long one operation waits for the lock before it counts as failed
 */
@ConfigurationProperties("distlock.demo")
public record DemoProperties(@Nullable Integer ops, @DefaultValue("8") int threads,
		@DefaultValue("demo:counter") String key, @DefaultValue("30s") Duration waitTime) {
}
