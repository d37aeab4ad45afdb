package dev.distlock.jdbc;

/**
 * ShedLock's provider test on PostgreSQL.
 */
class PostgresDistlockLockProviderTests extends AbstractJdbcDistlockLockProviderTests {

	@Override
	JdbcTestDatabase createDatabase() {
		return JdbcTestDatabase.postgres();
	}

}
