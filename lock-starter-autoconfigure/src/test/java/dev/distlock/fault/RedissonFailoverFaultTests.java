package dev.distlock.fault;

import java.util.List;

/**
 * {@link RedisFailoverFaultTests} on the {@code redisson} backend.
 */
class RedissonFailoverFaultTests extends RedisFailoverFaultTests {

	@Override
	String backend() {
		return "redisson";
	}

	@Override
	List<String> backendArguments(int port) {
		return List.of("--distlock.provider=redisson", "--fault.redisson.address=redis://127.0.0.1:" + port,
				"--distlock.call-timeout=" + RedisFaultTests.CLIENT_TIMEOUT.toMillis() + "ms",
				RedisFaultTests.NO_DATA_SOURCE);
	}

}
