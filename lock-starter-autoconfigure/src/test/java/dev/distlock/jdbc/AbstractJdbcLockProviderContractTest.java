package dev.distlock.jdbc;

import dev.distlock.core.LockProvider;
import dev.distlock.core.LockType;
import dev.distlock.test.AbstractLockProviderContractTest;

/**
 * The provider contract on one SQL dialect; each provider stands for another process on the same table.
 */
abstract class AbstractJdbcLockProviderContractTest extends AbstractLockProviderContractTest {

	/**
	 * The database of the test class.
	 * @return the database
	 */
	protected abstract JdbcTestDatabase database();

	@Override
	protected LockProvider<?> createProvider() {
		return database().provider().build();
	}

	@Override
	protected void breakLock(String fullKey, LockType type) throws Exception {
		database().breakLock(fullKey, type);
	}

}
