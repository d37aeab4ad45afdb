package dev.distlock.bench;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link RedissonClient} bean of the {@code distlock-redisson} application: a plain
 * client with default settings, as {@code redisson-rlock} uses, declared by the
 * application (the Redisson starter is kept off the classpath because it would replace
 * Boot's Lettuce connection factory for the other Redis subjects).
 */
@Configuration(proxyBeanMethods = false)
class RedissonClientConfiguration {

	@Bean(destroyMethod = "shutdown")
	RedissonClient redissonClient(@Value("${bench.redisson.address}") String address) {
		Config config = new Config();
		config.useSingleServer().setAddress(address);
		return Redisson.create(config);
	}

}
