package dev.distlock.sample;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Turns on {@code @Scheduled} jobs unless {@code sample.scheduling.enabled=false}, which
 * the contention demo sets so that no job runs while it measures.
 */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
@ConditionalOnBooleanProperty(name = "sample.scheduling.enabled", matchIfMissing = true)
class SchedulingConfiguration {

}
