package dev.distlock.redisson;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.AbstractLockProviderContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.RedissonObject;
import org.redisson.api.RedissonClient;

/**
 * The provider contract on the shared Redis (127.0.0.1:6379), every type; each provider
 * has its own {@link RedissonClient}, as each process would.
 */
class RedissonLockProviderContractTests extends AbstractLockProviderContractTests<LockProvider<?>> {

	private static RedissonClient admin;

	@BeforeAll
	static void connect() {
		admin = RedissonClients.shared();
	}

	@AfterAll
	static void disconnect() {
		RedissonClients.shutdown(admin);
	}

	/**
	 * Fencing counters and semaphore sizes outlive their locks by design; tests leave
	 * none behind.
	 */
	@AfterEach
	void deleteKeys() {
		admin.getKeys().deleteByPattern("*" + this.prefix + "*");
	}

	@Override
	protected LockProvider<?> createProvider() {
		RedissonClient client = RedissonClients.shared();
		return RedissonClients.owning(new RedissonLockProvider(client), client);
	}

	/**
	 * Deletes Redisson's keys of the lock (not its fencing counter), as an operator or an
	 * eviction would.
	 */
	@Override
	protected void breakLock(String fullKey, LockType type) {
		admin.getKeys().delete(RedissonClients.keysOf(fullKey, type).toArray(String[]::new));
		if (type == LockType.READ || type == LockType.WRITE) {
			String name = RedissonLockKeys.of(fullKey, type).lock();
			admin.getKeys().deleteByPattern(RedissonObject.suffixName(name, "*:rwlock_timeout:*"));
		}
	}

}
