package dev.distlock.observability;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.TryOnceLockProvider;
import dev.distlock.test.TestServers;
import org.h2.tools.Server;

/**
 * TEST FIXTURE, not a distlock backend: a minimal MUTEX-only {@link LockProvider} over
 * plain JDBC to an H2 TCP server that this class starts on a free port and that a test
 * can {@link #stopServer() stop}, so health checks are proven against a real server doing
 * real network I/O, never a mock. Every call opens its own connection, so a stopped
 * server fails the next call at once with "connection refused".
 */
final class H2TcpFixtureLockProvider implements TryOnceLockProvider<H2TcpFixtureLockProvider.FixtureHeldLock> {

	static final String NAME = "h2fixture";

	static {
		// H2's client retries a refused connect 16 times with growing sleeps (~1.3 s); a
		// stopped server should fail
		// the call at once. Read once when H2 first loads; only H2 TCP clients (this
		// fixture) are affected.
		System.setProperty("h2.socketConnectRetry", "0");
	}

	private final Server server;

	private final String url;

	private H2TcpFixtureLockProvider(Server server, String url) {
		this.server = server;
		this.url = url;
	}

	/**
	 * Starts an H2 TCP server on a free port and creates the lock table in an in-memory
	 * database served by it.
	 * @return the provider
	 * @throws SQLException if the server could not start
	 */
	static H2TcpFixtureLockProvider start() throws SQLException {
		int port = TestServers.freePort();
		Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
		String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:fixture_" + UUID.randomUUID().toString().replace("-", "")
				+ ";DB_CLOSE_DELAY=-1";
		H2TcpFixtureLockProvider provider = new H2TcpFixtureLockProvider(server, url);
		try (Connection connection = provider.connect(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE locks (lock_key VARCHAR(512) PRIMARY KEY, owner VARCHAR(128) NOT NULL, "
					+ "fence BIGINT NOT NULL, lease_until TIMESTAMP NOT NULL)");
			statement.execute("CREATE SEQUENCE fences");
		}
		return provider;
	}

	/**
	 * Stops the server, as a crash or an operator would; later calls fail with
	 * "connection refused".
	 */
	void stopServer() {
		this.server.stop();
	}

	boolean isRunning() {
		return this.server.isRunning(false);
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public Set<LockType> supportedTypes() {
		return EnumSet.of(LockType.MUTEX);
	}

	@Override
	public AttemptOutcome<FixtureHeldLock> tryAcquire(LockAttempt attempt) throws SQLException {
		try (Connection connection = connect()) {
			try (PreparedStatement expired = connection
				.prepareStatement("DELETE FROM locks WHERE lock_key = ? AND lease_until < CURRENT_TIMESTAMP")) {
				expired.setString(1, attempt.key());
				expired.executeUpdate();
			}
			try (PreparedStatement insert = connection.prepareStatement("INSERT INTO locks VALUES "
					+ "(?, ?, NEXT VALUE FOR fences, DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP))")) {
				insert.setString(1, attempt.key());
				insert.setString(2, attempt.owner());
				insert.setLong(3, attempt.lease().toMillis());
				insert.executeUpdate();
			}
			catch (SQLIntegrityConstraintViolationException ex) {
				return AttemptOutcome.busy();
			}
			try (PreparedStatement select = connection
				.prepareStatement("SELECT fence FROM locks WHERE lock_key = ? AND owner = ?")) {
				select.setString(1, attempt.key());
				select.setString(2, attempt.owner());
				try (var result = select.executeQuery()) {
					result.next();
					return AttemptOutcome.acquired(new FixtureHeldLock(attempt, result.getLong(1)));
				}
			}
		}
	}

	@Override
	public boolean renew(FixtureHeldLock lock, Duration lease) throws SQLException {
		LockAttempt attempt = lock.attempt();
		try (Connection connection = connect();
				PreparedStatement update = connection.prepareStatement(
						"UPDATE locks SET lease_until = DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP) WHERE lock_key = ? "
								+ "AND owner = ? AND lease_until >= CURRENT_TIMESTAMP")) {
			update.setLong(1, lease.toMillis());
			update.setString(2, attempt.key());
			update.setString(3, attempt.owner());
			return update.executeUpdate() == 1;
		}
	}

	@Override
	public void release(FixtureHeldLock lock) throws SQLException {
		delete(lock.attempt());
	}

	@Override
	public void abandon(LockAttempt attempt) {
		try {
			delete(attempt);
		}
		catch (SQLException ex) {
			// best-effort by contract; the lease frees it
		}
	}

	private void delete(LockAttempt attempt) throws SQLException {
		try (Connection connection = connect();
				PreparedStatement delete = connection
					.prepareStatement("DELETE FROM locks WHERE lock_key = ? AND owner = ?")) {
			delete.setString(1, attempt.key());
			delete.setString(2, attempt.owner());
			delete.executeUpdate();
		}
	}

	/**
	 * Rows in the lock table, to check that health probes leave nothing behind.
	 * @return the number of rows
	 * @throws SQLException if the server is down
	 */
	int rows() throws SQLException {
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				var result = statement.executeQuery("SELECT COUNT(*) FROM locks")) {
			result.next();
			return result.getInt(1);
		}
	}

	private Connection connect() throws SQLException {
		return DriverManager.getConnection(this.url, "sa", "");
	}

	@Override
	public void close() {
		this.server.stop();
	}

	record FixtureHeldLock(LockAttempt attempt, long fencingToken) implements HeldLock {
	}

}
