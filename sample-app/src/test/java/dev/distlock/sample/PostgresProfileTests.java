package dev.distlock.sample;

import org.junit.jupiter.api.AfterAll;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Profile {@code postgres}: locks and data in the local PostgreSQL, in a schema of this
 * test's own.
 */
@ActiveProfiles("postgres")
class PostgresProfileTests extends AbstractProfileTests {

	private static final String SCHEMA = TestDatabases.randomName();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.createPostgresSchema(SCHEMA));
		registry.add("spring.datasource.username", () -> TestDatabases.postgres().username());
		registry.add("spring.datasource.password", () -> TestDatabases.postgres().password());
	}

	@AfterAll
	static void dropSchema() {
		TestDatabases.dropPostgresSchema(SCHEMA);
	}

	@Override
	String backend() {
		return "jdbc";
	}

}
