package dev.distlock.fencing;

import java.net.URI;
import java.time.Duration;

import dev.distlock.test.TestServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Connections to the real Redis and PostgreSQL of the tests, for this JVM and for child
 * JVMs.
 */
final class FencingTestSupport {

	private FencingTestSupport() {
	}

	static LettuceConnectionFactory redis(URI uri) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static DriverManagerDataSource postgres() {
		TestServers.JdbcServer server = TestServers.postgres();
		return postgres(server.url(), server.username(), server.password());
	}

	static DriverManagerDataSource postgres(String url, String user, String password) {
		return new DriverManagerDataSource(url, user, password);
	}

	static SingleConnectionDataSource single(String url, String user, String password) {
		return new SingleConnectionDataSource(url, user, password, true);
	}

}
