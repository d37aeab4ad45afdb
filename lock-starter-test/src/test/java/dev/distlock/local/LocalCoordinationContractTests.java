package dev.distlock.local;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.test.AbstractCoordinationContractTests;

/**
 * The coordination contract on the in-JVM backend; providers share one store, as
 * processes share a server.
 */
class LocalCoordinationContractTests extends AbstractCoordinationContractTests<LocalLockProvider> {

	private final LocalLockProvider backend = new LocalLockProvider();

	@Override
	protected LocalLockProvider createProvider() {
		return new LocalLockProvider(this.backend);
	}

	private final LocalLatchProvider latches = new LocalLatchProvider();

	@Override
	protected LatchProvider createLatchProvider() {
		return new LocalLatchProvider(this.latches);
	}

}
