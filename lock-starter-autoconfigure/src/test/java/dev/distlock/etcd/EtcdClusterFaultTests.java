package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults on a real three-member etcd cluster while two processes (each with its own
 * client on every member) take and hold locks on a few keys from several threads: the
 * leader killed and restarted, and the leader or a follower cut off (SIGSTOP: its sockets
 * stay open and silent, as in a partition). Every hold is recorded (key, token, from,
 * to); the holds that were still valid when their work ended must never overlap on a key,
 * tokens must rise with the order of the holds on each key, every call must return within
 * its wait plus the call timeout, and locks must be granted again once the cluster has a
 * leader.
 */
@Tag("fault")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EtcdClusterFaultTests {

	private static final Duration WAIT = Duration.ofSeconds(3);

	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Scheduling on a machine shared with other builds, on top of the wait and the call
	 * timeout.
	 */
	private static final Duration SLACK = Duration.ofSeconds(2);

	private static final List<String> KEYS = List.of("fault/a", "fault/b", "fault/c");

	/**
	 * How long a member stays cut off. While the leader is, only a few locks are granted
	 * a second (over 5 s, 1 to 6 in eight runs, and none once in a loaded CI run; over 10
	 * s, 4 to 8 in six runs). Not explained yet: the clients may still send some calls to
	 * the silent member, each waiting out the call timeout.
	 */
	private static final Duration CUT_OFF = Duration.ofSeconds(10);

	private EtcdCluster cluster;

	private final List<Client> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeEach
	void startCluster() {
		this.cluster = EtcdCluster.start(3);
	}

	@AfterEach
	void stopCluster() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(20, TimeUnit.SECONDS);
		this.templates.forEach(LockTemplate::close);
		this.clients.forEach(Client::close);
		this.cluster.close();
	}

	@Test
	void leaderKilledAndRestartedWhileLocksAreHeldAndTaken() throws Exception {
		Workload workload = new Workload(List.of(process(), process()));
		workload.start(2);
		Thread.sleep(2000);
		EtcdCluster.Member leader = this.cluster.leader();
		int before = workload.granted.get();
		leader.kill();
		Thread.sleep(3000);
		leader.restart();
		this.cluster.leader();
		int duringAndAfter = workload.granted.get();
		Thread.sleep(3000);
		workload.stop();
		workload.assertConsistent();
		assertThat(before).as("locks granted before the leader was killed").isPositive();
		assertThat(workload.granted.get()).as("locks granted after the restart").isGreaterThan(duringAndAfter);
	}

	@Test
	void leaderCutOffWhileLocksAreHeldAndTaken() throws Exception {
		cutOffWhileLocksAreHeldAndTaken(this.cluster.leader());
	}

	@Test
	void followerCutOffWhileLocksAreHeldAndTaken() throws Exception {
		EtcdCluster.Member leader = this.cluster.leader();
		EtcdCluster.Member follower = this.cluster.members()
			.stream()
			.filter((member) -> member != leader)
			.findFirst()
			.orElseThrow();
		cutOffWhileLocksAreHeldAndTaken(follower);
	}

	private void cutOffWhileLocksAreHeldAndTaken(EtcdCluster.Member member) throws Exception {
		Workload workload = new Workload(List.of(process(), process()));
		workload.start(2);
		Thread.sleep(2000);
		member.pause();
		int before = workload.granted.get();
		try {
			Thread.sleep(CUT_OFF.toMillis());
		}
		finally {
			member.resume();
		}
		int whileCutOff = workload.granted.get() - before;
		this.cluster.leader();
		Thread.sleep(2000);
		workload.stop();
		workload.assertConsistent();
		assertThat(whileCutOff).as("locks granted by the other two members while %s was cut off", member).isPositive();
	}

	private LockTemplate process() {
		Client client = this.cluster.client();
		this.clients.add(client);
		EtcdLockProvider provider = EtcdLockProvider.builder(client).callTimeout(CALL_TIMEOUT).build();
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults()
					.withKeyPrefix("")
					.withCallTimeout(CALL_TIMEOUT)
					.withWatchdog(Duration.ofSeconds(3), null),
				List.of());
		this.templates.add(template);
		return template;
	}

	/**
	 * One hold: a lock held from {@code start} to {@code end} (nano times) with a token.
	 */
	record Hold(String key, long token, String holder, long start, long end) {
	}

	/** Threads of several processes taking the keys in turn and recording their holds. */
	private final class Workload {

		private final List<LockTemplate> processes;

		private final List<Hold> holds = Collections.synchronizedList(new ArrayList<>());

		private final List<String> slowCalls = Collections.synchronizedList(new ArrayList<>());

		private final AtomicInteger granted = new AtomicInteger();

		private final AtomicInteger failed = new AtomicInteger();

		private final AtomicInteger lost = new AtomicInteger();

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final List<Future<?>> threads = new ArrayList<>();

		Workload(List<LockTemplate> processes) {
			this.processes = processes;
		}

		void start(int threadsPerProcess) {
			for (int p = 0; p < this.processes.size(); p++) {
				for (int t = 0; t < threadsPerProcess; t++) {
					LockTemplate process = this.processes.get(p);
					String holder = "p" + p + "-t" + t;
					this.threads.add(EtcdClusterFaultTests.this.executor.submit(() -> run(process, holder)));
				}
			}
		}

		private Void run(LockTemplate process, String holder) throws InterruptedException {
			int n = 0;
			while (this.running.get()) {
				String key = KEYS.get(n++ % KEYS.size());
				long requested = System.nanoTime();
				try (Lease lease = process.acquire(LockRequest.builder(key).waitTime(WAIT).build())) {
					long start = System.nanoTime();
					Thread.sleep(5);
					long end = System.nanoTime();
					if (lease.isValid()) {
						this.holds.add(new Hold(key, lease.fencingToken(), holder, start, end));
						this.granted.incrementAndGet();
					}
					else {
						this.lost.incrementAndGet();
					}
				}
				catch (LockAcquisitionException ex) {
					this.failed.incrementAndGet();
				}
				long took = System.nanoTime() - requested;
				if (took > WAIT.plus(CALL_TIMEOUT).plus(SLACK).toNanos()) {
					this.slowCalls.add(holder + " on " + key + ": " + TimeUnit.NANOSECONDS.toMillis(took) + " ms");
				}
			}
			return null;
		}

		void stop() throws Exception {
			this.running.set(false);
			for (Future<?> thread : this.threads) {
				thread.get(30, TimeUnit.SECONDS);
			}
		}

		void assertConsistent() {
			assertThat(this.slowCalls).as("calls that took longer than wait + call timeout (+%s)", SLACK).isEmpty();
			Map<String, List<Hold>> byKey = this.holds.stream().collect(Collectors.groupingBy(Hold::key));
			for (List<Hold> holds : byKey.values()) {
				holds.sort(Comparator.comparingLong(Hold::start));
				for (int i = 1; i < holds.size(); i++) {
					Hold previous = holds.get(i - 1);
					Hold next = holds.get(i);
					assertThat(next.start()).as("%s began before %s ended", next, previous)
						.isGreaterThan(previous.end());
					assertThat(next.token()).as("token of %s after %s", next, previous).isGreaterThan(previous.token());
				}
			}
			assertThat(this.holds).as("valid holds recorded (failed: %d, lost: %d)", this.failed.get(), this.lost.get())
				.isNotEmpty();
		}

	}

}
