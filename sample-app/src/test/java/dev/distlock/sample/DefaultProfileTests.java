package dev.distlock.sample;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The default profile: the JDBC backend and the data on an H2 file database in
 * AUTO_SERVER mode, nothing installed.
 */
class DefaultProfileTests extends AbstractProfileTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.h2Url(DefaultProfileTests.class));
	}

	@Override
	String backend() {
		return "jdbc";
	}

}
