package dev.distlock.autoconfigure;

import dev.distlock.observability.MetricsLockListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The lease gauges and counters of every lock backend ({@link MetricsLockListener}), when
 * Micrometer is on the class path and a {@link MeterRegistry} bean exists; the
 * {@code distlock.acquire} and {@code distlock.hold} timers come from the observations of
 * {@link DistlockObservationAutoConfiguration}. Runs before
 * {@link DistlockAutoConfiguration} so the listener is there when the
 * {@code LockTemplate} collects its listeners. Turn meters off with
 * {@code management.metrics.enable.distlock=false}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class,
		after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class DistlockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MetricsLockListener distlockMetricsLockListener(MeterRegistry meterRegistry) {
		return new MetricsLockListener(meterRegistry);
	}

}
