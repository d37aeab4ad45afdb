package dev.distlock.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis replica promoted by failover: two {@code redis-server} processes of the test's
 * own, the second a replica of the first ({@code REPLICAOF}) through a {@link TcpProxy},
 * the children talking to the primary through another proxy. The primary is killed, the
 * replica promoted ({@code REPLICAOF NO ONE}) and the children's proxy pointed at it, as
 * a Sentinel or a cloud failover would. With replication caught up the lock survives;
 * with the replication link cut before the grant (asynchronous replication lagging at the
 * moment of failover) the promoted replica never saw the lock and another process gets it
 * while the holder still runs: the overlap docs/redis.md names, which fencing tokens must
 * still keep in order.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisFailoverFaultTests {

	Path dir;

	RedisNode primary;

	RedisNode replica;

	TcpProxy replication;

	TcpProxy clients;

	@BeforeEach
	void startPair() throws Exception {
		this.dir = Files.createTempDirectory("distlock-fault-failover");
		this.primary = RedisNode.start(this.dir);
		this.replica = RedisNode.start(this.dir);
		this.replication = TcpProxy.start(this.primary.port());
		this.clients = TcpProxy.start(this.primary.port());
		this.replica.command("REPLICAOF", "127.0.0.1", Integer.toString(this.replication.port()));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while (!this.replica.command("INFO", "replication").contains("master_link_status:up")) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The replica did not connect to its primary");
			}
			Thread.sleep(50);
		}
	}

	@AfterEach
	void stopPair() throws Exception {
		this.clients.close();
		this.replication.close();
		this.primary.close();
		this.replica.close();
		FileSystemUtils.deleteRecursively(this.dir);
	}

	String backend() {
		return "redis";
	}

	List<String> backendArguments(int port) {
		return RedisFaultTests.redisArguments(port);
	}

	@Test
	void failoverWithReplicationCaughtUp() throws Exception {
		failover(false);
	}

	@Test
	void failoverWithReplicationLagging() throws Exception {
		failover(true);
	}

	private void failover(boolean lagging) throws Exception {
		String fault = "failover, replication " + (lagging ? "lagging (link cut before the grant)" : "caught up");
		try (FaultRun run = new FaultRun(backend(), fault)) {
			List<String> arguments = new ArrayList<>(backendArguments(this.clients.port()));
			// work long enough (renewed by the watchdog) to span the failover
			arguments.addAll(AbstractFaultTests.commonArguments(Duration.ofMillis(1500)));
			run.launch("A", arguments);
			run.launch("B", arguments);
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			if (lagging) {
				this.replication.cut();
			}
			run.awaitHolder(Duration.ofSeconds(15));
			if (!lagging) {
				awaitReplicaCaughtUp();
			}
			this.primary.kill();
			this.replica.command("REPLICAOF", "NO", "ONE");
			this.clients.retarget(this.replica.port());
			this.clients.reset();
			long healed = System.nanoTime();
			run.awaitProgress(Duration.ofSeconds(30));
			FaultChecker checker = run.stop();
			checker.checkOverlaps(lagging);
			checker.checkFencing();
			checker.checkNoHang(AbstractFaultTests.WAIT.plus(RedisFaultTests.CLIENT_TIMEOUT), run.stoppedAt());
			checker.checkRecovered(healed, run.live());
			long holds = run.record(checker);
			assertThat(checker.violations()).as("violations of %s; worker logs:%n%s", run.name(), run.logs()).isEmpty();
			assertThat(holds).as("calls that held the lock during %s", run.name()).isPositive();
		}
	}

	private void awaitReplicaCaughtUp() throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (System.nanoTime() < deadline) {
			long primaryOffset = offset(this.primary.command("INFO", "replication"), "master_repl_offset:");
			long replicaOffset = offset(this.replica.command("INFO", "replication"), "slave_repl_offset:");
			if (primaryOffset > 0 && replicaOffset >= primaryOffset) {
				return;
			}
			Thread.sleep(10);
		}
		throw new IllegalStateException("The replica did not catch up with its primary");
	}

	private static long offset(String info, String field) {
		for (String line : info.split("\r\n")) {
			if (line.startsWith(field)) {
				return Long.parseLong(line.substring(field.length()).trim());
			}
		}
		return -1;
	}

}
