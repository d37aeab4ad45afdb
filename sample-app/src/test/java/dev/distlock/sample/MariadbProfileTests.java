package dev.distlock.sample;

import org.junit.jupiter.api.AfterAll;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Profile {@code mariadb}: locks and data in the local MariaDB, in a database of this
 * test's own.
 */
@ActiveProfiles("mariadb")
class MariadbProfileTests extends AbstractProfileTests {

	private static final String DATABASE = TestDatabases.randomName();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.createMariadbDatabase(DATABASE));
		registry.add("spring.datasource.username", () -> TestDatabases.mariadb().username());
		registry.add("spring.datasource.password", () -> TestDatabases.mariadb().password());
	}

	@AfterAll
	static void dropDatabase() {
		TestDatabases.dropMariadbDatabase(DATABASE);
	}

	@Override
	String backend() {
		return "jdbc";
	}

}
