package dev.distlock.autoconfigure;

import dev.distlock.observability.ObservationLockListener;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Observations of lock acquisition and hold ({@link ObservationLockListener}), when
 * micrometer-observation is on the class path and an {@link ObservationRegistry} bean
 * exists: spans with a tracer, and the {@code distlock.acquire} and {@code distlock.hold}
 * timers with Spring Boot's meter observation handler. Runs before
 * {@link DistlockAutoConfiguration} so the listener is there when the
 * {@code LockTemplate} collects its listeners. Turn them off with
 * {@code management.observations.enable.distlock=false}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class, after = ObservationAutoConfiguration.class)
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
public final class DistlockObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ObservationLockListener distlockObservationLockListener(ObservationRegistry observationRegistry) {
		return new ObservationLockListener(observationRegistry);
	}

}
