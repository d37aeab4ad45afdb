package dev.distlock.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.observability.LockProviderHealthIndicator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * A {@code distlock} health contributor with one {@link LockProviderHealthIndicator} per
 * backend the {@link LockTemplate} uses, each doing one cheap round trip. Shown under
 * {@code /actuator/health} as {@code distlock.<provider>}; switch off with
 * {@code management.health.distlock.enabled=false}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(LockTemplate.class)
@ConditionalOnEnabledHealthIndicator("distlock")
public final class DistlockHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "distlockHealthIndicator", "distlockHealthContributor" })
	HealthContributor distlockHealthContributor(LockTemplate lockTemplate) {
		Map<String, HealthContributor> indicators = new LinkedHashMap<>();
		for (LockProvider provider : lockTemplate.providers().values()) {
			indicators.put(provider.name(), new LockProviderHealthIndicator(lockTemplate, provider));
		}
		return CompositeHealthContributor.fromMap(indicators);
	}

}
