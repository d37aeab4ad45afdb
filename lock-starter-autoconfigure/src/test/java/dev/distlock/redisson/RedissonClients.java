package dev.distlock.redisson;

import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.ForwardingLockProvider;
import dev.distlock.test.TestServers;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson clients for tests: small pools (each test "process" has its own client), and a
 * provider wrapper that shuts its client down when the provider is closed, as the
 * application context would.
 */
final class RedissonClients {

	private RedissonClients() {
	}

	/** A client of the shared test Redis. */
	static RedissonClient shared() {
		return create(TestServers.redisUri().toString());
	}

	static RedissonClient create(String address) {
		return Redisson.create(config(address));
	}

	static Config config(String address) {
		URI uri = URI.create(address);
		Config config = new Config();
		config.setNettyThreads(4);
		config.setThreads(2);
		config.useSingleServer()
			.setAddress("redis://" + uri.getHost() + ":" + uri.getPort())
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(8)
			.setSubscriptionConnectionMinimumIdleSize(1)
			.setSubscriptionConnectionPoolSize(4);
		return config;
	}

	static void shutdown(RedissonClient client) {
		client.shutdown(0, 2, TimeUnit.SECONDS);
	}

	/** A provider that owns its client: closing it shuts the client down. */
	static LockProvider owning(LockProvider<?> delegate, RedissonClient client) {
		return new OwningProvider(delegate, client);
	}

	private static final class OwningProvider extends ForwardingLockProvider {

		private final RedissonClient client;

		OwningProvider(LockProvider<?> delegate, RedissonClient client) {
			super(delegate);
			this.client = client;
		}

		@Override
		public void close() {
			try {
				delegate().close();
			}
			finally {
				shutdown(this.client);
			}
		}

	}

	static List<String> keysOf(String fullKey, LockType type) {
		return RedissonLockKeys.of(fullKey, type).lockState();
	}

}
