package dev.distlock.local;

import dev.distlock.core.LockType;
import dev.distlock.test.AbstractLockProviderContractTests;

/**
 * The provider contract on the in-JVM reference backend; providers share one store, as
 * processes share a server.
 */
class LocalLockProviderContractTests extends AbstractLockProviderContractTests<LocalLockProvider> {

	private final LocalLockProvider backend = new LocalLockProvider();

	@Override
	protected LocalLockProvider createProvider() {
		return new LocalLockProvider(this.backend);
	}

	@Override
	protected void breakLock(String fullKey, LockType type) {
		this.backend.clear(fullKey, type);
	}

}
