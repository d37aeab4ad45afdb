package dev.distlock.redisson.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.ConditionalOnLockProvider;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.redisson.RedissonLockProvider;
import dev.distlock.redisson.RedissonQuorumLockProvider;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The Redisson backends, when Redisson is on the classpath. The {@code redisson} provider
 * runs on the application's {@link RedissonClient} (from
 * {@code redisson-spring-boot-starter} or the application's own bean), so it is
 * configured after the Redisson starter. The {@code redisson-quorum} provider connects to
 * {@code distlock.redisson.nodes} itself and needs no client bean. Each registers per
 * {@link ConditionalOnLockProvider} under its own name, which is why the conditions sit
 * on the two nested configurations rather than on this class. The {@code redisson}
 * provider bounds its calls by {@code distlock.call-timeout}; the quorum's by
 * {@code distlock.redisson.node-timeout}, and both an acquisition's by its wait plus
 * {@code distlock.call-timeout}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class,
		afterName = { "org.redisson.spring.starter.RedissonAutoConfigurationV4",
				"org.redisson.spring.starter.RedissonAutoConfigurationV2",
				"org.redisson.spring.starter.RedissonAutoConfiguration" })
@ConditionalOnClass(RedissonClient.class)
@EnableConfigurationProperties({ RedissonLockProperties.class, DistlockProperties.class })
@Import({ RedissonLockAutoConfiguration.ClientProviderConfiguration.class,
		RedissonLockAutoConfiguration.QuorumProviderConfiguration.class })
public final class RedissonLockAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnSingleCandidate(RedissonClient.class)
	@ConditionalOnLockProvider(RedissonLockProvider.NAME)
	static class ClientProviderConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedissonLockProvider redissonLockProvider(RedissonClient redissonClient, RedissonLockProperties properties,
				DistlockProperties distlockProperties, ObjectProvider<RedissonLockProviderCustomizer> customizers) {
			RedissonLockProvider provider = new RedissonLockProvider(redissonClient,
					distlockProperties.getCallTimeout());
			provider.setFenceRetention(properties.getFenceRetention());
			customizers.orderedStream().forEach((customizer) -> customizer.customize(provider));
			return provider;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(OnQuorumNodesCondition.class)
	@ConditionalOnLockProvider(RedissonQuorumLockProvider.NAME)
	static class QuorumProviderConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		RedissonQuorumLockProvider redissonQuorumLockProvider(RedissonLockProperties properties,
				ObjectProvider<RedissonQuorumNodeConfigCustomizer> customizers) {
			List<RedissonQuorumNodeConfigCustomizer> nodeCustomizers = customizers.orderedStream().toList();
			RedissonQuorumLockProvider provider = RedissonQuorumLockProvider.connect(properties.getNodes(),
					properties.getNodeTimeout(), (config) -> {
						config.useSingleServer()
							.setUsername(properties.getUsername())
							.setPassword(properties.getPassword());
						nodeCustomizers.forEach((customizer) -> customizer.customize(config));
						return config;
					});
			provider.setFenceRetention(properties.getFenceRetention());
			return provider;
		}

	}

	/** Matches when {@code distlock.redisson.nodes} lists at least one address. */
	static class OnQuorumNodesCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			List<String> nodes = Binder.get(context.getEnvironment())
				.bind("distlock.redisson.nodes", Bindable.listOf(String.class))
				.orElse(List.of());
			return nodes.isEmpty() ? ConditionOutcome.noMatch("distlock.redisson.nodes is not set")
					: ConditionOutcome.match("distlock.redisson.nodes lists " + nodes.size() + " servers");
		}

	}

}
