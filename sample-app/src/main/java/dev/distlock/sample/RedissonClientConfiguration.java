package dev.distlock.sample;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link RedissonClient} for the {@code redisson} backend, built from Spring Boot's
 * {@code spring.data.redis.*} (single server) and only when
 * {@code distlock.provider=redisson}, so that the other profiles never connect to Redis.
 * An application that already has a {@code RedissonClient} (from
 * {@code redisson-spring-boot-starter} or its own configuration) needs none of this:
 * distlock's Redisson backend uses that one.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "distlock.provider", havingValue = "redisson")
class RedissonClientConfiguration {

	@Bean(destroyMethod = "shutdown")
	RedissonClient redissonClient(DataRedisProperties redis) {
		Config config = new Config().setUsername(redis.getUsername()).setPassword(redis.getPassword());
		String address = (redis.getUrl() != null) ? redis.getUrl()
				: (redis.getSsl().isEnabled() ? "rediss://" : "redis://") + redis.getHost() + ":" + redis.getPort();
		SingleServerConfig server = config.useSingleServer().setAddress(address).setDatabase(redis.getDatabase());
		if (redis.getTimeout() != null) {
			server.setTimeout((int) redis.getTimeout().toMillis());
		}
		if (redis.getConnectTimeout() != null) {
			server.setConnectTimeout((int) redis.getConnectTimeout().toMillis());
		}
		return Redisson.create(config);
	}

}
