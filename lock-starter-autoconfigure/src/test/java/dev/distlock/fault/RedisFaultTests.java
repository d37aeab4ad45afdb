package dev.distlock.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code redis} backend (Lua scripts over Lettuce) under the common faults, on a
 * {@code redis-server} of its own, plus that server killed and restarted empty while a
 * holder holds.
 */
class RedisFaultTests extends AbstractFaultTests {

	static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(1);

	static final String NO_DATA_SOURCE = "--spring.autoconfigure.exclude="
			+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

	private Path dir;

	RedisNode node;

	@BeforeAll
	void startServer() throws Exception {
		this.dir = Files.createTempDirectory("distlock-fault-redis");
		this.node = RedisNode.start(this.dir);
	}

	@AfterAll
	void stopServer() throws Exception {
		this.node.close();
		FileSystemUtils.deleteRecursively(this.dir);
	}

	@Override
	String backend() {
		return "redis";
	}

	@Override
	int serverPort() {
		return this.node.port();
	}

	@Override
	List<String> backendArguments(int port) {
		return redisArguments(port);
	}

	static List<String> redisArguments(int port) {
		return List.of("--distlock.provider=redis", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + port, "--spring.data.redis.timeout=" + CLIENT_TIMEOUT.toMillis() + "ms",
				"--spring.data.redis.connect-timeout=" + CLIENT_TIMEOUT.toMillis() + "ms", NO_DATA_SOURCE);
	}

	@Override
	Duration callBound() {
		return WAIT.plus(CLIENT_TIMEOUT);
	}

	@Test
	void serverKilledAndRestartedEmpty() throws Exception {
		try (FaultRun run = new FaultRun(backend(), "server SIGKILL + restart (no persistence)")) {
			run.launch("A", arguments(serverPort()));
			run.launch("B", arguments(serverPort()));
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			run.awaitHolder(Duration.ofSeconds(15));
			this.node.kill();
			Thread.sleep(1500);
			this.node.restart();
			long healed = System.nanoTime();
			run.awaitProgress(Duration.ofSeconds(30));
			FaultChecker checker = run.stop();
			// a restart without persistence forgets held locks: docs/redis.md and
			// README's "Guarantees" allow it
			checker.checkOverlaps(true);
			checker.checkFencing();
			checker.checkNoHang(callBound(), run.stoppedAt());
			checker.checkRecovered(healed, run.live());
			long holds = run.record(checker);
			assertThat(checker.violations()).as("violations of %s; worker logs:%n%s", run.name(), run.logs()).isEmpty();
			assertThat(holds).as("calls that held the lock during %s", run.name()).isPositive();
		}
	}

}
