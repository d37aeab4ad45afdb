package dev.distlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The provider contract on MariaDB, in a lock table of its own.
 */
class MariadbJdbcLockProviderContractTests extends AbstractJdbcLockProviderContractTests {

	private static JdbcTestDatabase database;

	@BeforeAll
	static void createTable() {
		database = JdbcTestDatabase.mariadb();
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
