package dev.distlock.jdbc;

/**
 * ShedLock's provider test on MariaDB.
 */
class MariadbDistlockLockProviderTests extends AbstractJdbcDistlockLockProviderTests {

	@Override
	JdbcTestDatabase createDatabase() {
		return JdbcTestDatabase.mariadb();
	}

}
