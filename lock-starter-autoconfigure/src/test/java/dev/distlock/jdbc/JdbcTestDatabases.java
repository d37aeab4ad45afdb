package dev.distlock.jdbc;

import java.util.Map;

/**
 * A lock table on each database the backend is tested on ({@code h2}, {@code postgresql},
 * {@code mariadb}), for test classes that run each case on every dialect; closing drops
 * them.
 */
final class JdbcTestDatabases implements AutoCloseable {

	private final Map<String, JdbcTestDatabase> databases;

	private JdbcTestDatabases(Map<String, JdbcTestDatabase> databases) {
		this.databases = databases;
	}

	static JdbcTestDatabases all() {
		return new JdbcTestDatabases(Map.of("h2", JdbcTestDatabase.h2(), "postgresql", JdbcTestDatabase.postgres(),
				"mariadb", JdbcTestDatabase.mariadb()));
	}

	JdbcTestDatabase get(String database) {
		JdbcTestDatabase found = this.databases.get(database);
		if (found == null) {
			throw new IllegalArgumentException(
					"No test database " + database + "; there are " + this.databases.keySet());
		}
		return found;
	}

	@Override
	public void close() {
		this.databases.values().forEach(JdbcTestDatabase::close);
	}

}
