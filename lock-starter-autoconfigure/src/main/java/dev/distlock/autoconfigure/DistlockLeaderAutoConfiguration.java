package dev.distlock.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;

import dev.distlock.core.LockTemplate;
import dev.distlock.leader.LeaderCandidate;
import dev.distlock.leader.LeaderOnly;
import dev.distlock.leader.LeaderOnlyInterceptor;

import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Leader election: with {@code distlock.leader.enabled=true}, a {@link LeaderCandidate}
 * for this instance (a lifecycle bean that runs for leader of
 * {@code distlock.leader.group} while the context runs); with spring-aop, the
 * {@link LeaderOnly @LeaderOnly} advisor (also when election is off, so that such a
 * method fails instead of running on every instance). The {@code distlockLeader} endpoint
 * is {@link DistlockEndpointAutoConfiguration}'s.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@EnableConfigurationProperties(DistlockLeaderProperties.class)
public final class DistlockLeaderAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("distlock.leader.enabled")
	@ConditionalOnBean(LockTemplate.class)
	static class CandidateConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaderCandidate distlockLeaderCandidate(LockTemplate lockTemplate, DistlockLeaderProperties properties,
				Environment environment, ApplicationEventPublisher publisher) {
			String group = properties.getGroup();
			if (group == null || group.isBlank()) {
				group = environment.getProperty("spring.application.name", "application");
			}
			String id = properties.getCandidateId();
			return new LeaderCandidate(lockTemplate, group, properties.getLease(), properties.getProvider(),
					(id != null && !id.isBlank()) ? id : defaultId(), publisher);
		}

		private static String defaultId() {
			String host;
			try {
				host = InetAddress.getLocalHost().getHostName();
			}
			catch (UnknownHostException ex) {
				host = "unknown-host";
			}
			return host + ":" + ProcessHandle.current().pid();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.springframework.aop.framework.autoproxy.AbstractAdvisorAutoProxyCreator",
			"org.aopalliance.intercept.MethodInterceptor" })
	@Import(DistributedLockConfiguration.AutoProxyRegistrar.class)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static class LeaderOnlyConfiguration {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DefaultPointcutAdvisor distlockLeaderOnlyAdvisor(ObjectProvider<LeaderCandidate> candidate) {
			// outside @DistributedLock's advisor, so a skipped call takes no lock
			return LeaderOnlyInterceptor.advisor(new LeaderOnlyInterceptor(candidate::getIfAvailable),
					Ordered.LOWEST_PRECEDENCE - 2);
		}

	}

}
