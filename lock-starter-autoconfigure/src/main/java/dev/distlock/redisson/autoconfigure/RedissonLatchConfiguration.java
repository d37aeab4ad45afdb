package dev.distlock.redisson.autoconfigure;

import dev.distlock.redisson.RedissonLatchProvider;
import dev.distlock.redisson.RedissonLockProvider;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code redisson} latch on the lock provider's client (none for
 * {@code redisson-quorum}), imported by {@code DistlockLatchAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedissonClient.class)
@ConditionalOnBean(RedissonLockProvider.class)
class RedissonLatchConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedissonLatchProvider redissonLatchProvider(RedissonClient redissonClient) {
		return new RedissonLatchProvider(redissonClient);
	}

}
