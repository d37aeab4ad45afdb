package dev.distlock.bench;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * For {@code diag-redis-template-plain-client} (diagnostic): the application's
 * {@link LettuceConnectionFactory} is a plain one, as {@code diag-redis-provider} uses,
 * instead of the one Boot's auto-configuration builds from {@code spring.data.redis.*}
 * (which then backs off). Everything else is {@code distlock-redis-template}'s, so the
 * gap between the two is the Lettuce client set-up alone.
 */
@Configuration(proxyBeanMethods = false)
class PlainLettuceConfiguration {

	@Bean
	LettuceConnectionFactory redisConnectionFactory(@Value("${bench.redis.host}") String host,
			@Value("${bench.redis.port}") int port) {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
	}

}
