package dev.distlock.sample;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;

/**
 * Databases of the sample's tests, each private to one test class so that parallel runs
 * (and other engineers' tests on the shared servers) never see each other's rows: an H2
 * file under {@code target/}, a PostgreSQL schema, a MariaDB database, each randomly
 * named and dropped afterwards.
 */
final class TestDatabases {

	private static final Map<String, String> CREATED = new ConcurrentHashMap<>();

	private TestDatabases() {
	}

	static String randomName() {
		return "sample_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
	}

	/**
	 * A fresh H2 file database in AUTO_SERVER mode, like the application's default one.
	 */
	static String h2Url() {
		Path dir = Path.of("target", "h2", randomName()).toAbsolutePath();
		return "jdbc:h2:file:" + dir.resolve("db") + ";AUTO_SERVER=TRUE";
	}

	/**
	 * A fresh H2 file database for a test class: the same URL however often the property
	 * is read.
	 */
	static String h2Url(Class<?> testClass) {
		return CREATED.computeIfAbsent("h2:" + testClass.getName(), (k) -> h2Url());
	}

	/**
	 * Creates a schema in the local PostgreSQL (once per name: property suppliers are
	 * called more than once) and answers a URL whose connections use it.
	 */
	static String createPostgresSchema(String schema) {
		return CREATED.computeIfAbsent("postgres:" + schema, (k) -> {
			JdbcServer server = TestServers.postgres();
			execute(server, server.url(), "CREATE SCHEMA " + schema);
			return server.url() + (server.url().contains("?") ? "&" : "?") + "currentSchema=" + schema;
		});
	}

	static void dropPostgresSchema(String schema) {
		JdbcServer server = TestServers.postgres();
		execute(server, server.url(), "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
	}

	/** Creates a database in the local MariaDB (once per name) and answers its URL. */
	static String createMariadbDatabase(String database) {
		return CREATED.computeIfAbsent("mariadb:" + database, (k) -> {
			JdbcServer server = TestServers.mariadb();
			execute(server, server.url(), "CREATE DATABASE " + database);
			return server.url().replaceFirst("^(jdbc:[a-z]+://[^/]+/)[^?]*", "$1" + database);
		});
	}

	static void dropMariadbDatabase(String database) {
		JdbcServer server = TestServers.mariadb();
		execute(server, server.url(), "DROP DATABASE IF EXISTS " + database);
	}

	static JdbcServer postgres() {
		return TestServers.postgres();
	}

	static JdbcServer mariadb() {
		return TestServers.mariadb();
	}

	private static void execute(JdbcServer server, String url, String sql) {
		try (Connection connection = DriverManager.getConnection(url, server.username(), server.password());
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run '" + sql + "' on " + server, ex);
		}
	}

}
