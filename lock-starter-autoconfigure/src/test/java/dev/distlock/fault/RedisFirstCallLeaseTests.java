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

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fresh application's first Redis call with a short lease: it connects, sends
 * {@code EVALSHA}, gets {@code NOSCRIPT} and sends {@code EVAL}, over a network with a
 * 100 ms round trip. The lease must be counted from the request that was answered (the
 * {@code EVAL}), not from before the connection existed, or the grant is refused as a
 * late one.
 */
class RedisFirstCallLeaseTests {

	@Test
	void firstCallCountsItsLeaseFromTheRequestThatWasAnswered() throws Exception {
		URI uri = TestServers.redisUri();
		LettuceConnectionFactory direct = factory(uri.getPort());
		try (TcpProxy proxy = TcpProxy.start(uri.getPort())) {
			// a server without the scripts, as after a restart: the first call costs
			// NOSCRIPT, then EVAL
			direct.getConnection().scriptingCommands().scriptFlush();
			proxy.delay(Duration.ofMillis(50));
			LettuceConnectionFactory slow = factory(proxy.port());
			RedisLockProvider provider = new RedisLockProvider(slow);
			try (LockTemplate template = new LockTemplate(List.of(provider), "redis",
					LockSettings.defaults().withKeyPrefix("first-call:" + UUID.randomUUID() + ":"), List.of())) {
				// the connection's handshake, EVALSHA and EVAL: at least 300 ms before
				// the grant arrives, 100 ms after the request that granted it
				String result = template.execute(
						LockRequest.builder("k").lease(Duration.ofMillis(250)).waitTime(Duration.ZERO).build(),
						() -> "ran");
				assertThat(result).as("the first call ran under its lease").isEqualTo("ran");
			}
			finally {
				provider.close();
				slow.destroy();
			}
		}
		finally {
			direct.destroy();
		}
	}

	private static LettuceConnectionFactory factory(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
