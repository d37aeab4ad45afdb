package dev.distlock.jdbc;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.shedlock.AbstractDistlockLockProviderTests;

/**
 * ShedLock's provider test on one SQL database, in a lock table of each test's own; each
 * node is another provider on it.
 */
abstract class AbstractJdbcDistlockLockProviderTests extends AbstractDistlockLockProviderTests {

	private JdbcTestDatabase database;

	/** A new lock table on the database under test. */
	abstract JdbcTestDatabase createDatabase();

	@Override
	protected LockProvider<?> createProvider() {
		if (this.database == null) {
			this.database = createDatabase();
		}
		return this.database.provider().build();
	}

	@Override
	protected void closeClients() {
		this.database.close();
	}

}
