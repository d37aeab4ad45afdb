package dev.distlock.jdbc;

/**
 * ShedLock's provider test on H2 (in memory).
 */
class H2DistlockLockProviderTests extends AbstractJdbcDistlockLockProviderTests {

	@Override
	JdbcTestDatabase createDatabase() {
		return JdbcTestDatabase.h2();
	}

}
