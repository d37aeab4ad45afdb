package dev.distlock.redis.autoconfigure;

import dev.distlock.redis.RedisLatchProvider;
import dev.distlock.redis.RedisLockProvider;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code redis} latch on the lock provider's connection factory, imported by
 * {@code DistlockLatchAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBean(RedisLockProvider.class)
class RedisLatchConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	RedisLatchProvider redisLatchProvider(RedisConnectionFactory connectionFactory) {
		return new RedisLatchProvider(connectionFactory);
	}

}
