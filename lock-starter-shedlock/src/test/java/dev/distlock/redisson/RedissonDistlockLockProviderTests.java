package dev.distlock.redisson;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.shedlock.AbstractDistlockLockProviderTests;
import org.redisson.api.RedissonClient;

/**
 * ShedLock's provider test on the shared Redis through Redisson; each node has its own
 * {@link RedissonClient}.
 */
class RedissonDistlockLockProviderTests extends AbstractDistlockLockProviderTests {

	@Override
	protected LockProvider<?> createProvider() {
		RedissonClient client = RedissonClients.shared();
		return RedissonClients.owning(new RedissonLockProvider(client), client);
	}

}
