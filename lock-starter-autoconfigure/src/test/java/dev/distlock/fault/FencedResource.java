package dev.distlock.fault;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Properties;

/**
 * The resource the locks protect: one PostgreSQL row per run, written by every holder
 * twice in one transaction, once guarded by the fencing token
 * ({@code ... WHERE token < ?}: each hold writes once, so the suite requires a strictly
 * greater token; README's recipe is {@code <=}) and once not. Every write is logged to
 * {@code fault_write} in the same transaction, so the log's id order is the order in
 * which the row's lock granted the writes. The connection is the resource's own
 * (application name {@value #APPLICATION_NAME}), never the lock provider's.
 */
final class FencedResource {

	static final String APPLICATION_NAME = "distlock-fault-resource";

	static final String SCHEMA = """
			CREATE TABLE IF NOT EXISTS fault_resource (run VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL,
			  unfenced_token BIGINT NOT NULL);
			CREATE TABLE IF NOT EXISTS fault_write (id BIGSERIAL PRIMARY KEY, run VARCHAR(64) NOT NULL,
			  worker VARCHAR(32) NOT NULL, token BIGINT NOT NULL, fenced BOOLEAN NOT NULL, accepted BOOLEAN NOT NULL);
			""";

	private final String url;

	private final String run;

	private final String worker;

	private Connection connection;

	FencedResource(String url, String run, String worker) {
		this.url = url;
		this.run = run;
		this.worker = worker;
	}

	/**
	 * Writes the token with and without the fencing check.
	 * @param token the holder's fencing token
	 * @return whether the fenced write was accepted
	 */
	synchronized boolean write(long token) {
		try {
			return writeOnce(token);
		}
		catch (SQLException ex) {
			close();
			try {
				return writeOnce(token);
			}
			catch (SQLException again) {
				close();
				throw new IllegalStateException("Could not write to the fenced resource", again);
			}
		}
	}

	private boolean writeOnce(long token) throws SQLException {
		Connection con = connection();
		try {
			boolean accepted;
			try (PreparedStatement fenced = con
				.prepareStatement("UPDATE fault_resource SET token = ? WHERE run = ? AND token < ?")) {
				fenced.setLong(1, token);
				fenced.setString(2, this.run);
				fenced.setLong(3, token);
				accepted = fenced.executeUpdate() == 1;
			}
			log(con, token, true, accepted);
			try (PreparedStatement unfenced = con
				.prepareStatement("UPDATE fault_resource SET unfenced_token = ? WHERE run = ?")) {
				unfenced.setLong(1, token);
				unfenced.setString(2, this.run);
				unfenced.executeUpdate();
			}
			log(con, token, false, true);
			con.commit();
			return accepted;
		}
		catch (SQLException ex) {
			con.rollback();
			throw ex;
		}
	}

	private void log(Connection con, long token, boolean fenced, boolean accepted) throws SQLException {
		try (PreparedStatement insert = con.prepareStatement(
				"INSERT INTO fault_write (run, worker, token, fenced, accepted) VALUES (?, ?, ?, ?, ?)")) {
			insert.setString(1, this.run);
			insert.setString(2, this.worker);
			insert.setLong(3, token);
			insert.setBoolean(4, fenced);
			insert.setBoolean(5, accepted);
			insert.executeUpdate();
		}
	}

	private Connection connection() throws SQLException {
		if (this.connection == null) {
			Properties properties = new Properties();
			properties.setProperty("ApplicationName", APPLICATION_NAME);
			properties.setProperty("connectTimeout", "2");
			properties.setProperty("socketTimeout", "5");
			this.connection = DriverManager.getConnection(this.url, properties);
			this.connection.setAutoCommit(false);
		}
		return this.connection;
	}

	private void close() {
		if (this.connection != null) {
			try {
				this.connection.close();
			}
			catch (SQLException ex) {
				// a broken connection: dropped
			}
			this.connection = null;
		}
	}

}
