package dev.distlock.redisson;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockProvider;
import dev.distlock.core.LockType;
import dev.distlock.core.LockWaiter;
import dev.distlock.core.Acquisition;
import dev.distlock.test.TestServers;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson clients for tests: small pools (each test "process" has its own client), and a provider wrapper that shuts
 * its client down when the provider is closed, as the application context would.
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
	static LockProvider owning(LockProvider delegate, RedissonClient client) {
		return new OwningProvider(delegate, client);
	}

	private record OwningProvider(LockProvider delegate, RedissonClient client) implements LockProvider {

		@Override
		public String name() {
			return this.delegate.name();
		}

		@Override
		public Set<LockType> supportedTypes() {
			return this.delegate.supportedTypes();
		}

		@Override
		public Acquisition tryAcquire(LockAttempt attempt) throws Exception {
			return this.delegate.tryAcquire(attempt);
		}

		@Override
		public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
			return this.delegate.acquire(attempt, waiter);
		}

		@Override
		public boolean renew(HeldLock lock, Duration lease) throws Exception {
			return this.delegate.renew(lock, lease);
		}

		@Override
		public void release(HeldLock lock) throws Exception {
			this.delegate.release(lock);
		}

		@Override
		public void abandon(LockAttempt attempt) {
			this.delegate.abandon(attempt);
		}

		@Override
		public void close() {
			try {
				this.delegate.close();
			}
			finally {
				shutdown(this.client);
			}
		}

	}

	static List<String> keysOf(String fullKey, LockType type) {
		String name = RedissonLockProvider.redisName(fullKey, type);
		return switch (type) {
			case MUTEX, READ, WRITE -> List.of(name);
			case FAIR -> List.of(name, org.redisson.RedissonObject.prefixName("redisson_lock_queue", name),
					org.redisson.RedissonObject.prefixName("redisson_lock_timeout", name));
			case SEMAPHORE -> List.of(name, org.redisson.RedissonObject.suffixName(name, "timeout"));
		};
	}

}
