package dev.distlock.fault;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service whose connection to Redis takes longer to open than
 * {@code distlock.call-timeout} (a slow network, a cold JVM under load): its first
 * try-lock after start-up ({@code waitTime = 0}) must not fail with "Could not connect to
 * Redis in time". The provider opens its connection when it is initialized, not on the
 * first call, which waits for it only until its own deadline.
 */
class RedisEarlyConnectTests {

	@Test
	@Timeout(60)
	void firstTryLockAfterStartUpDoesNotWaitForASlowConnection() throws Exception {
		URI uri = TestServers.redisUri();
		try (TcpProxy proxy = TcpProxy.start(uri.getPort())) {
			// twice the call timeout: a connection opened on the first call's behalf
			// would not be there by its deadline
			proxy.connectDelay(Duration.ofSeconds(2));
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", proxy.port()));
			factory.afterPropertiesSet();
			factory.start();
			RedisLockProvider provider = new RedisLockProvider(factory);
			provider.setCallTimeout(Duration.ofSeconds(1));
			provider.afterPropertiesSet();
			try (LockTemplate template = new LockTemplate(List.of(provider), "redis",
					LockSettings.defaults().withKeyPrefix("early-connect:" + UUID.randomUUID() + ":"), List.of())) {
				// the application finishes starting while the connection is made
				long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
				while (proxy.connected() == 0 && System.nanoTime() - until < 0) {
					Thread.sleep(20);
				}
				assertThat(proxy.connected()).as("the provider opened its connection at start-up").isPositive();
				String result = template.execute(LockRequest.builder("k").waitTime(Duration.ZERO).build(), () -> "ran");
				assertThat(result).as("the first try-lock ran").isEqualTo("ran");
			}
			finally {
				provider.close();
				factory.destroy();
			}
		}
	}

}
