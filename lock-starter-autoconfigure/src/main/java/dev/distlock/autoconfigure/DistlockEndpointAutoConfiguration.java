package dev.distlock.autoconfigure;

import dev.distlock.core.LockTemplate;
import dev.distlock.leader.LeaderCandidate;
import dev.distlock.leader.LeaderEndpoint;
import dev.distlock.observability.LocksEndpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The actuator endpoints, when the actuator is on the class path: {@code distlockLocks}
 * ({@link LocksEndpoint}) when a {@link LockTemplate} exists, and {@code distlockLeader}
 * ({@link LeaderEndpoint}) when leader election is on (a {@link LeaderCandidate} exists).
 * Each is created only when available, for example exposed with
 * {@code management.endpoints.web.exposure.include=distlockLocks,distlockLeader}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { DistlockAutoConfiguration.class, DistlockLeaderAutoConfiguration.class,
		EndpointAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@Import({ DistlockEndpointAutoConfiguration.LocksEndpointConfiguration.class,
		DistlockEndpointAutoConfiguration.LeaderEndpointConfiguration.class })
public final class DistlockEndpointAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(LockTemplate.class)
	@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
	static class LocksEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LocksEndpoint distlockLocksEndpoint(LockTemplate lockTemplate) {
			return new LocksEndpoint(lockTemplate);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(LeaderCandidate.class)
	@ConditionalOnAvailableEndpoint(LeaderEndpoint.class)
	static class LeaderEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaderEndpoint distlockLeaderEndpoint(LeaderCandidate candidate) {
			return new LeaderEndpoint(candidate);
		}

	}

}
