package dev.distlock.test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared test servers are reachable. Fails (never skips) when one is missing, with a
 * message saying what to start.
 */
class TestServersTests {

	@Test
	void redisAnswersPing() throws Exception {
		URI uri = TestServers.redisUri();
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2000);
			socket.setSoTimeout(2000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			assertThat(in.readLine()).as("reply of %s to PING", uri).isEqualTo("+PONG");
		}
	}

	@Test
	void postgresRunsSelectOne() throws Exception {
		assertSelectOne(TestServers.postgres());
	}

	@Test
	void mariadbRunsSelectOne() throws Exception {
		assertSelectOne(TestServers.mariadb());
	}

	@Test
	void serversAreComputedOnce() {
		assertThat(TestServers.redisUri()).isSameAs(TestServers.redisUri());
		assertThat(TestServers.postgres()).isSameAs(TestServers.postgres());
		assertThat(TestServers.mariadb()).isSameAs(TestServers.mariadb());
	}

	@Test
	void freePortCanBeBound() throws Exception {
		int port = TestServers.freePort();
		assertThat(port).isBetween(1, 65535);
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress("127.0.0.1", port));
		}
	}

	@Test
	void redisServerBinaryIsExecutable() {
		Path binary = TestServers.redisServerBinary();
		assertThat(Files.isExecutable(binary)).as("%s is executable", binary).isTrue();
	}

	private static void assertSelectOne(TestServers.JdbcServer server) throws Exception {
		try (Connection connection = DriverManager.getConnection(server.url(), server.username(), server.password());
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("select 1")) {
			assertThat(rs.next()).as("%s returned a row", server.url()).isTrue();
			assertThat(rs.getInt(1)).isEqualTo(1);
		}
	}

}
