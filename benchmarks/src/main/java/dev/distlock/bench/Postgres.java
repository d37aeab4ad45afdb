package dev.distlock.bench;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The PostgreSQL connection pool the JDBC subjects share a shape of: HikariCP, 10
 * connections.
 */
final class Postgres {

	private Postgres() {
	}

	static HikariDataSource dataSource(BenchConfig config, String name) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setPoolName("bench-" + name);
		dataSource.setJdbcUrl(config.pgUrl());
		dataSource.setUsername(config.pgUser());
		dataSource.setPassword(config.pgPassword());
		dataSource.setMaximumPoolSize(10);
		return dataSource;
	}

}
