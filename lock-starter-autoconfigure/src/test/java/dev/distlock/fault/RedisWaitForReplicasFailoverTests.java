package dev.distlock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock.redis.wait-for-replicas} against the failover of
 * {@link RedisFailoverFaultTests}: the same pair of servers and proxies, the replication
 * link cut while the children lock.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisWaitForReplicasFailoverTests {

	private final RedisFailoverFaultTests pair = new RedisFailoverFaultTests();

	@BeforeEach
	void startPair() throws Exception {
		this.pair.startPair();
	}

	@AfterEach
	void stopPair() throws Exception {
		this.pair.stopPair();
	}

	/**
	 * The lagging failover again with {@code distlock.redis.wait-for-replicas=1}: while
	 * the replication link is cut no grant reaches a replica, so every one is refused and
	 * cleaned up, and the promoted replica (given a replica of its own) never misses a
	 * lock that was handed out: no unnoticed overlap.
	 */
	@Test
	void failoverWithReplicationLaggingWaitingForReplicas() throws Exception {
		String fault = "failover, replication lagging, wait-for-replicas=1";
		try (FaultRun run = new FaultRun(this.pair.backend(), fault); RedisNode next = RedisNode.start(this.pair.dir)) {
			List<String> arguments = new ArrayList<>(this.pair.backendArguments(this.pair.clients.port()));
			arguments.addAll(List.of("--distlock.redis.wait-for-replicas=1", "--distlock.redis.replica-timeout=200ms"));
			arguments.addAll(AbstractFaultTests.commonArguments(Duration.ofMillis(1500)));
			run.launch("A", arguments);
			run.launch("B", arguments);
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			this.pair.replication.cut();
			// grants now reach no replica: each is refused (LockAcquisitionException) and
			// its key cleaned up
			Thread.sleep(2000);
			this.pair.primary.kill();
			this.pair.replica.command("REPLICAOF", "NO", "ONE");
			next.command("REPLICAOF", "127.0.0.1", Integer.toString(this.pair.replica.port()));
			this.pair.clients.retarget(this.pair.replica.port());
			this.pair.clients.reset();
			long healed = System.nanoTime();
			run.awaitProgress(Duration.ofSeconds(30));
			FaultChecker checker = run.stop();
			checker.checkOverlaps(false);
			checker.checkFencing();
			checker.checkNoHang(AbstractFaultTests.WAIT.plus(RedisFaultTests.CLIENT_TIMEOUT).plusMillis(200),
					run.stoppedAt());
			checker.checkRecovered(healed, run.live());
			long holds = run.record(checker);
			assertThat(checker.violations()).as("violations of %s; worker logs:%n%s", run.name(), run.logs()).isEmpty();
			assertThat(holds).as("calls that held the lock during %s", run.name()).isPositive();
		}
	}

}
