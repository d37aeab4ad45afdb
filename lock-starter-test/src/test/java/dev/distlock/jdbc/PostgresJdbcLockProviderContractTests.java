package dev.distlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The provider contract on PostgreSQL, in a lock table of its own.
 */
class PostgresJdbcLockProviderContractTests extends AbstractJdbcLockProviderContractTests {

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
	protected JdbcTestDatabase database() {
		return database;
	}

}
