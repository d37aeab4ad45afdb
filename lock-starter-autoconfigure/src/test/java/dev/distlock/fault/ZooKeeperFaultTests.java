package dev.distlock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.zookeeper.ZooKeeperTestSupport;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.util.ServiceUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code zookeeper} backend under the common faults, on an in-process server with a
 * 500 ms tick (so a 2 s session is allowed), plus an ensemble of three losing a follower
 * and then its leader while a holder holds. A crashed or paused holder's lock is free
 * when the servers expire its session.
 */
class ZooKeeperFaultTests extends AbstractFaultTests {

	private static final Duration LEADER_ELECTION_BOUND = Duration.ofSeconds(90);

	static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);

	static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

	private static final int TICK_MILLIS = 500;

	private TestingServer server;

	@BeforeAll
	void startServer() throws Exception {
		// in-process servers: an fsync per write on a disk shared with builds only adds
		// random latency
		System.setProperty("zookeeper.forceSync", "no");
		// a restarted ensemble member may find its election port still taken for a
		// moment: keep trying to bind it instead of giving up after three tries, and
		// never let a server that gives up exit the test JVM (ZooKeeper's default)
		System.setProperty("zookeeper.electionPortBindRetry", "0");
		ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
		this.server = new TestingServer(spec(), true);
	}

	@AfterAll
	void stopServer() throws Exception {
		this.server.close();
	}

	private static InstanceSpec spec() {
		return new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MILLIS, -1);
	}

	@Override
	String backend() {
		return "zookeeper";
	}

	@Override
	int serverPort() {
		return this.server.getPort();
	}

	@Override
	List<String> backendArguments(int port) {
		return zooKeeperArguments("127.0.0.1:" + port);
	}

	private static List<String> zooKeeperArguments(String connectString) {
		return List.of("--distlock.provider=zookeeper", "--distlock.zookeeper.connect-string=" + connectString,
				"--distlock.zookeeper.session-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
				"--distlock.zookeeper.connection-timeout=" + CONNECTION_TIMEOUT.toMillis() + "ms",
				RedisFaultTests.NO_DATA_SOURCE);
	}

	@Override
	Duration callBound() {
		return WAIT.plus(CONNECTION_TIMEOUT);
	}

	@Override
	Duration crashBound() {
		return SESSION_TIMEOUT.plusSeconds(1);
	}

	@Test
	void ensembleLosesAFollowerThenItsLeader() throws Exception {
		List<InstanceSpec> specs = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			specs.add(spec());
		}
		try (TestingCluster cluster = new TestingCluster(specs);
				FaultRun run = new FaultRun(backend(), "ensemble: follower, then leader killed and restarted")) {
			cluster.start();
			List<String> arguments = new ArrayList<>(zooKeeperArguments(cluster.getConnectString()));
			arguments.addAll(commonArguments(Duration.ofMillis(300)));
			run.launch("A", arguments);
			run.launch("B", arguments);
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			InstanceSpec leader = leader(cluster);
			InstanceSpec follower = specs.stream().filter((spec) -> spec != leader).findFirst().orElseThrow();
			run.awaitHolder(Duration.ofSeconds(15));
			cluster.killServer(follower);
			run.awaitProgress(Duration.ofSeconds(15));
			cluster.restartServer(follower);
			run.awaitHolder(Duration.ofSeconds(15));
			cluster.killServer(leader);
			leader(cluster);
			cluster.restartServer(leader);
			long healed = System.nanoTime();
			run.awaitProgress(Duration.ofSeconds(30));
			FaultChecker checker = run.stop();
			checker.checkOverlaps(false);
			checker.checkFencing();
			checker.checkNoHang(callBound(), run.stoppedAt());
			checker.checkRecovered(healed, run.live());
			long holds = run.record(checker);
			assertThat(checker.violations()).as("violations of %s; worker logs:%n%s", run.name(), run.logs()).isEmpty();
			assertThat(holds).as("calls that held the lock during %s", run.name()).isPositive();
		}
	}

	/**
	 * The ensemble's leader, once it has one. The bound is generous: after a leader dies,
	 * the two servers left elect a new one while their election connections to the dead
	 * one time out and their notification interval backs off (up to 60 s between rounds
	 * in ZooKeeper's fast leader election); on two busy cores that can take more than 20
	 * s. Only the servers are asked here, not distlock.
	 */
	private static InstanceSpec leader(TestingCluster cluster) throws Exception {
		return ZooKeeperTestSupport.leader(cluster.getInstances(), LEADER_ELECTION_BOUND);
	}

}
