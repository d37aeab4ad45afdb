package dev.distlock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The faults every cross-process backend goes through, each in child JVMs running
 * {@link FaultWorkerApp} on one key, each judged by {@link FaultChecker}: the holder
 * paused with SIGSTOP past its lease and resumed, the holder killed with SIGKILL, the
 * backend connection delayed, reset and cut through a {@link TcpProxy}. Subclasses start
 * the backend, say how a child connects to it, and add the backend's server fault.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractFaultTests {

	/** Watchdog lease of the children: how long a crashed holder blocks the key. */
	static final Duration LEASE = Duration.ofSeconds(2);

	/** Wait of every call. */
	static final Duration WAIT = Duration.ofSeconds(3);

	/** The backend's name in reports. */
	abstract String backend();

	/** The port the backend server listens on, for the proxy. */
	abstract int serverPort();

	/**
	 * A child's backend arguments.
	 * @param port where the child reaches the backend: the server's port or a proxy's
	 */
	abstract List<String> backendArguments(int port);

	/** Longest a call may take to get the lock or fail: wait + one client timeout. */
	abstract Duration callBound();

	/**
	 * Longest a killed holder's lock may stay taken: lease (or session timeout) + 1 s.
	 */
	Duration crashBound() {
		return LEASE.plusSeconds(1);
	}

	/** How long to pause a holder: well past its lease. */
	Duration pause() {
		return crashBound().plusMillis(500);
	}

	List<String> arguments(int port) {
		List<String> arguments = new ArrayList<>(backendArguments(port));
		arguments.addAll(commonArguments(Duration.ofMillis(300)));
		return arguments;
	}

	/**
	 * What every child gets: the lease, the wait, and its work's pace.
	 * @param hold how long the guarded method works before its write
	 */
	static List<String> commonArguments(Duration hold) {
		List<String> arguments = new ArrayList<>();
		arguments.add("--distlock.watchdog.lease=" + LEASE.toMillis() + "ms");
		arguments.add("--distlock.default-wait=" + WAIT.toMillis() + "ms");
		arguments.add("--fault.hold=" + hold.toMillis() + "ms");
		arguments.add("--fault.gap=50ms");
		return arguments;
	}

	@Test
	void holderPausedPastItsLease() throws Exception {
		try (FaultRun run = new FaultRun(backend(), "SIGSTOP past lease")) {
			run.launch("A", arguments(serverPort()));
			run.launch("B", arguments(serverPort()));
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			long healed = 0;
			for (int i = 0; i < 2; i++) {
				String holder = run.awaitHolder(Duration.ofSeconds(15));
				run.pause(holder, pause());
				healed = System.nanoTime();
				run.awaitProgress(Duration.ofSeconds(15));
			}
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

	@Test
	void holderKilled() throws Exception {
		try (FaultRun run = new FaultRun(backend(), "SIGKILL holder")) {
			run.launch("A", arguments(serverPort()));
			run.launch("B", arguments(serverPort()));
			run.launch("C", arguments(serverPort()));
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			Map<String, Long> kills = new LinkedHashMap<>();
			for (int i = 0; i < 2; i++) {
				String holder = run.awaitHolder(Duration.ofSeconds(15));
				kills.put(holder, run.kill(holder));
				run.awaitProgress(Duration.ofSeconds(15));
			}
			FaultChecker checker = run.stop();
			kills.forEach((killed, at) -> checker.checkTakeover(killed, at, crashBound()));
			checker.checkOverlaps(false);
			checker.checkFencing();
			checker.checkNoHang(callBound(), run.stoppedAt());
			long holds = run.record(checker);
			assertThat(checker.violations()).as("violations of %s; worker logs:%n%s", run.name(), run.logs()).isEmpty();
			assertThat(holds).as("calls that held the lock during %s", run.name()).isPositive();
		}
	}

	@Test
	void connectionDelayedResetAndCut() throws Exception {
		try (FaultRun run = new FaultRun(backend(), "proxy: delay, reset, cut");
				TcpProxy proxy = TcpProxy.start(serverPort())) {
			run.launch("A", arguments(proxy.port()));
			run.launch("B", arguments(serverPort()));
			run.awaitReady();
			run.awaitProgress(Duration.ofSeconds(15));
			proxy.delay(Duration.ofMillis(150));
			run.awaitProgress(Duration.ofSeconds(15));
			proxy.delay(Duration.ZERO);
			proxy.reset();
			run.awaitProgress(Duration.ofSeconds(15));
			// cut while A holds, longer than its lease
			run.awaitHolder("A", Duration.ofSeconds(20));
			proxy.cut();
			Thread.sleep(pause().toMillis());
			proxy.heal();
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

}
