package dev.distlock.jdbc;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.test.AbstractCoordinationContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The coordination contract on MariaDB, in a lock table of its own; every provider stands
 * for another process on it.
 */
class MariadbCoordinationContractTests extends AbstractCoordinationContractTests<JdbcLockProvider> {

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
	protected JdbcLockProvider createProvider() {
		return database.provider().build();
	}

	@Override
	protected LatchProvider createLatchProvider() {
		return new JdbcLatchProvider(database.dataSource(), database.tableName(), null);
	}

}
