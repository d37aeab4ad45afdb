package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.test.AbstractCoordinationContractTests;
import dev.distlock.test.TestServers;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The coordination contract on the Redis at {@link TestServers#redisUri()}; every
 * provider is another "process" with its own connection factory.
 */
class RedisCoordinationContractTests extends AbstractCoordinationContractTests<RedisLockProvider> {

	private final List<LettuceConnectionFactory> factories = Collections.synchronizedList(new ArrayList<>());

	@Override
	protected RedisLockProvider createProvider() {
		LettuceConnectionFactory factory = RedisTestConnections.standalone(TestServers.redisUri(),
				Duration.ofSeconds(10));
		this.factories.add(factory);
		return new RedisLockProvider(factory);
	}

	@Override
	protected void closeClients() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@Override
	protected LatchProvider createLatchProvider() {
		LettuceConnectionFactory factory = RedisTestConnections.standalone(TestServers.redisUri(),
				Duration.ofSeconds(10));
		this.factories.add(factory);
		return new RedisLatchProvider(factory);
	}

}
