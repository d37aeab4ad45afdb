package dev.distlock.redis;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lettuce connection factories for the Redis tests, with short timeouts so that a server
 * that is down fails a call within seconds instead of Lettuce's default minute, and a
 * quick reconnect after a restart.
 */
final class RedisTestConnections {

	/**
	 * Event loops shared by every test connection factory for the life of the test JVM.
	 */
	private static final ClientResources RESOURCES = DefaultClientResources.builder()
		.reconnectDelay(Delay.constant(Duration.ofMillis(200)))
		.build();

	private RedisTestConnections() {
	}

	static LettuceConnectionFactory standalone(URI uri, Duration commandTimeout) {
		return standalone(uri, commandTimeout, null);
	}

	static LettuceConnectionFactory standalone(URI uri, Duration commandTimeout, @Nullable String clientName) {
		RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(
				(uri.getHost() != null) ? uri.getHost() : "127.0.0.1", (uri.getPort() > 0) ? uri.getPort() : 6379);
		if (uri.getUserInfo() != null) {
			String[] credentials = uri.getUserInfo().split(":", 2);
			if (credentials.length == 2) {
				if (!credentials[0].isEmpty()) {
					server.setUsername(credentials[0]);
				}
				server.setPassword(credentials[1]);
			}
			else {
				server.setPassword(credentials[0]);
			}
		}
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.clientOptions(ClientOptions.builder().socketOptions(socketOptions(commandTimeout)).build())
			.clientResources(resources());
		if (clientName != null) {
			client.clientName(clientName);
		}
		return start(new LettuceConnectionFactory(server, client.build()));
	}

	static LettuceConnectionFactory cluster(List<String> nodes, Duration commandTimeout) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.clientOptions(ClusterClientOptions.builder().socketOptions(socketOptions(commandTimeout)).build())
			.clientResources(resources())
			.build();
		return start(new LettuceConnectionFactory(new RedisClusterConfiguration(nodes), client));
	}

	private static SocketOptions socketOptions(Duration connectTimeout) {
		return SocketOptions.builder().connectTimeout(connectTimeout).build();
	}

	private static ClientResources resources() {
		return RESOURCES;
	}

	private static LettuceConnectionFactory start(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
