package dev.distlock.jdbc;

import dev.distlock.core.LockProvider;
import dev.distlock.shedlock.AbstractDistlockLockProviderTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * ShedLock's provider test on PostgreSQL, in a lock table of its own; each node is another provider on it.
 */
class PostgresDistlockLockProviderTests extends AbstractDistlockLockProviderTests {

	private static JdbcTestDatabase database;

	@BeforeAll
	static void createTable() {
		database = JdbcTestDatabase.postgres();
	}

	@AfterAll
	static void dropTable() {
		database.close();
	}

	@Override
	protected LockProvider<?> createProvider() {
		return database.provider().build();
	}

}
