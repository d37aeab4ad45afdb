package dev.distlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The provider contract on H2, in a lock table of its own.
 */
class H2JdbcLockProviderContractTests extends AbstractJdbcLockProviderContractTests {

	private static JdbcTestDatabase database;

	@BeforeAll
	static void createTable() {
		database = JdbcTestDatabase.h2();
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
