package dev.distlock.fault;

import java.util.List;

/**
 * The {@code redisson} backend under the same faults as {@link RedisFaultTests}, on a
 * {@code RedissonClient} the application declares (1 s timeouts, one retry), with
 * {@code distlock.call-timeout=1s}.
 */
class RedissonFaultTests extends RedisFaultTests {

	@Override
	String backend() {
		return "redisson";
	}

	@Override
	List<String> backendArguments(int port) {
		return List.of("--distlock.provider=redisson", "--fault.redisson.address=redis://127.0.0.1:" + port,
				"--distlock.call-timeout=" + CLIENT_TIMEOUT.toMillis() + "ms", NO_DATA_SOURCE);
	}

}
