package dev.distlock.autoconfigure;

import dev.distlock.core.LockTemplate;
import dev.distlock.observability.LocksEndpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code locks} actuator endpoint ({@link LocksEndpoint}), when the actuator is on
 * the class path, a {@link LockTemplate} exists, and the endpoint is available (exposed
 * with {@code management.endpoints.web.exposure.include=locks} and not switched off).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { DistlockAutoConfiguration.class, EndpointAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LockTemplate.class)
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
public final class DistlockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LocksEndpoint locksEndpoint(LockTemplate lockTemplate) {
		return new LocksEndpoint(lockTemplate);
	}

}
