package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.shedlock.AbstractDistlockLockProviderTests;
import dev.distlock.test.TestServers;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * ShedLock's provider test on the Redis at {@link TestServers#redisUri()}; each node has
 * its own connection factory.
 */
class RedisDistlockLockProviderTests extends AbstractDistlockLockProviderTests {

	private final List<LettuceConnectionFactory> factories = Collections.synchronizedList(new ArrayList<>());

	@Override
	protected LockProvider<?> createProvider() {
		LettuceConnectionFactory factory = RedisTestConnections.standalone(TestServers.redisUri(),
				Duration.ofSeconds(10));
		this.factories.add(factory);
		return new RedisLockProvider(factory);
	}

	@Override
	protected void closeClients() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

}
