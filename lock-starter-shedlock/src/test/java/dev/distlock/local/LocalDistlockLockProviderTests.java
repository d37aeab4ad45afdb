package dev.distlock.local;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.shedlock.AbstractDistlockLockProviderTests;

/**
 * ShedLock's provider test on the in-JVM backend; both nodes share one store, as
 * processes share a server.
 */
class LocalDistlockLockProviderTests extends AbstractDistlockLockProviderTests {

	private final LocalLockProvider store = new LocalLockProvider();

	@Override
	protected LockProvider<?> createProvider() {
		return new LocalLockProvider(this.store);
	}

}
