package dev.distlock.autoconfigure;

import dev.distlock.fencing.FencingListener;
import dev.distlock.fencing.JdbcFencing;
import dev.distlock.fencing.MetricsFencingListener;
import dev.distlock.fencing.RedisFencing;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Fenced writes ({@link JdbcFencing} over the application's {@link JdbcClient},
 * {@link RedisFencing} over its {@link StringRedisTemplate}) and, with Micrometer, the
 * {@value MetricsFencingListener#REJECTED} counter. Each backs off when its client is
 * absent or when the application declares its own.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
public final class DistlockFencingAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean(MetricsFencingListener.class)
		MetricsFencingListener distlockMetricsFencingListener(MeterRegistry meterRegistry) {
			return new MetricsFencingListener(meterRegistry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JdbcClient.class)
	@ConditionalOnSingleCandidate(JdbcClient.class)
	static class JdbcConfiguration {

		@Bean
		@ConditionalOnMissingBean
		JdbcFencing jdbcFencing(JdbcClient jdbcClient, ObjectProvider<FencingListener> listeners) {
			return new JdbcFencing(jdbcClient, listener(listeners));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(StringRedisTemplate.class)
	@ConditionalOnSingleCandidate(StringRedisTemplate.class)
	static class RedisConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisFencing redisFencing(StringRedisTemplate redisTemplate, ObjectProvider<FencingListener> listeners) {
			return new RedisFencing(redisTemplate, listener(listeners));
		}

	}

	/**
	 * Every listener bean, looked up on each (rare) refusal so that none is created
	 * before it is needed.
	 */
	static FencingListener listener(ObjectProvider<FencingListener> listeners) {
		return (store, name, exception) -> listeners.orderedStream()
			.forEach((listener) -> listener.rejected(store, name, exception));
	}

}
