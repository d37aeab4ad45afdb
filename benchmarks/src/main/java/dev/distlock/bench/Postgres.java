package dev.distlock.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The PostgreSQL connection pool the JDBC subjects share a shape of: HikariCP, 10
 * connections.
 */
final class Postgres {

	private Postgres() {
	}

	/**
	 * Vacuums (and analyzes) a subject's lock table before its trial, so that every trial
	 * starts from a table without the earlier trials' dead rows, as a default server's
	 * autovacuum leaves a small, busy table within about a minute. {@code run.sh} runs
	 * the JDBC subjects on a PostgreSQL of its own with initdb's defaults (autovacuum
	 * on); on this machine's shared server ({@code BENCH_PG=shared},
	 * {@code autovacuum = off} for CI) each table would otherwise carry every earlier
	 * trial and run (after the full run of 2026-11-29 00:52, Spring Integration's
	 * {@code INT_LOCK} held 578,463 dead rows and distlock's table 570,570). Rows that
	 * die during the trial stay.
	 * @param config the connection settings
	 * @param table the table
	 * @throws SQLException if the vacuum failed
	 */
	static void vacuum(BenchConfig config, String table) throws SQLException {
		try (Connection connection = DriverManager.getConnection(config.pgUrl(), config.pgUser(), config.pgPassword());
				Statement statement = connection.createStatement()) {
			statement.execute("VACUUM ANALYZE " + table);
		}
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
