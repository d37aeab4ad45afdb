package dev.distlock.autoconfigure;

import dev.distlock.leader.LeaderCandidate;
import dev.distlock.leader.LeaderEndpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code leader} actuator endpoint ({@link LeaderEndpoint}), when the actuator is on
 * the class path, leader election is on (a {@link LeaderCandidate} exists), and the
 * endpoint is available (exposed with
 * {@code management.endpoints.web.exposure.include=leader}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { DistlockLeaderAutoConfiguration.class, EndpointAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LeaderCandidate.class)
@ConditionalOnAvailableEndpoint(LeaderEndpoint.class)
public final class DistlockLeaderEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeaderEndpoint leaderEndpoint(LeaderCandidate candidate) {
		return new LeaderEndpoint(candidate);
	}

}
