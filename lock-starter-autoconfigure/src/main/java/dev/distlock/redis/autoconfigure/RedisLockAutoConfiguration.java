package dev.distlock.redis.autoconfigure;

import java.time.Duration;

import dev.distlock.autoconfigure.ConditionalOnLockProvider;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockSettings;
import dev.distlock.redis.RedisLockProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ClassUtils;

/**
 * The {@code redis} backend: a {@link RedisLockProvider} on the application's
 * {@link RedisConnectionFactory}, the one Spring Boot configures from
 * {@code spring.data.redis.*} (or another library's, such as Redisson's). Registered when
 * Spring Data Redis is on the class path, there is one connection factory, and
 * {@code distlock.provider} is unset or {@code redis} (or
 * {@code distlock.redis.enabled=true}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ RedisConnectionFactory.class, StringRedisTemplate.class })
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@ConditionalOnLockProvider("redis")
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedisLockAutoConfiguration {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisLockAutoConfiguration.class.getClassLoader());

	@Bean
	@ConditionalOnMissingBean
	RedisLockProvider redisLockProvider(RedisConnectionFactory connectionFactory, RedisLockProperties properties,
			ObjectProvider<LockSettings> settings, ObjectProvider<RedisLockProviderCustomizer> customizers) {
		LockSettings lockSettings = settings.getIfAvailable(LockSettings::defaults);
		checkWaiterTimeout(properties.getWaiterTimeout(), lockSettings);
		if (properties.getFenceRetention().toMillis() < 1) {
			throw new LockConfigurationException(
					"distlock.redis.fence-retention must be at least 1ms, was " + properties.getFenceRetention());
		}
		RedisLockProvider provider = new RedisLockProvider(connectionFactory);
		// distlock.call-timeout: the bound of every call, whatever
		// spring.data.redis.timeout is
		provider.setCallTimeout(lockSettings.callTimeout());
		provider.setWaiterTimeout(properties.getWaiterTimeout());
		provider.setWriterPreference(properties.isWriterPreference());
		provider.setFenceRetention(properties.getFenceRetention());
		provider.setReleaseMode(properties.getReleaseMode());
		if (properties.getWaitForReplicas() != 0) {
			checkWaitForReplicas(properties, connectionFactory);
			provider.setWaitForReplicas(properties.getWaitForReplicas(), properties.getReplicaTimeout());
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(provider));
		return provider;
	}

	private static void checkWaiterTimeout(Duration waiterTimeout, LockSettings settings) {
		// a waiter keeps its place by trying again, and sleeps at most this long between
		// tries
		Duration longestSleep = (settings.fallbackPoll().compareTo(settings.maxBackoff()) > 0) ? settings.fallbackPoll()
				: settings.maxBackoff();
		if (waiterTimeout.compareTo(longestSleep.multipliedBy(2)) < 0) {
			throw new LockConfigurationException("distlock.redis.waiter-timeout (" + waiterTimeout + ") must be at "
					+ "least twice distlock.wait.fallback-poll and distlock.wait.max-backoff (" + longestSleep
					+ "): waiters keep their FAIR queue place by trying again within it");
		}
	}

	private static void checkWaitForReplicas(RedisLockProperties properties, RedisConnectionFactory factory) {
		if (properties.getWaitForReplicas() < 0 || properties.getReplicaTimeout().toMillis() < 1) {
			throw new LockConfigurationException("distlock.redis.wait-for-replicas must not be negative and "
					+ "distlock.redis.replica-timeout must be at least 1ms, were " + properties.getWaitForReplicas()
					+ " and " + properties.getReplicaTimeout());
		}
		if (!LETTUCE_PRESENT || !(factory instanceof LettuceConnectionFactory lettuce) || lettuce.isClusterAware()) {
			throw new LockConfigurationException("distlock.redis.wait-for-replicas needs a Lettuce connection to a "
					+ "standalone or Sentinel Redis (WAIT must follow the grant on the same connection); the "
					+ "connection factory is " + factory.getClass().getName());
		}
	}

}
