package dev.distlock.sample;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.sample.SampleHttp.Answer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the sample, each a JVM process of its own on its own port, on the
 * default configuration: the JDBC backend on one H2 file database in AUTO_SERVER mode
 * (the first instance opens the file, the second reaches it over TCP), which is what a
 * newcomer gets by starting the application twice. Driven over HTTP at the same time,
 * they hold a lock one at a time with growing fencing tokens, keep the counters they
 * protect exact, fence off a holder paused past its lease, and run the once-per-cluster
 * job on exactly one of them.
 */
class TwoInstancesEndToEndTests {

	private static SampleProcess first;

	private static SampleProcess second;

	@BeforeAll
	static void startTwoInstances() throws Exception {
		List<String> arguments = List.of("--spring.datasource.url=" + TestDatabases.h2Url(),
				"--sample.report-job.initial-delay=1h", "--sample.report-job.interval=1h",
				"--sample.report-job.duration=2s", "--sample.report-job.hold-at-least=1s", "--sample.account.lease=1s",
				"--sample.car-park.wait-time=300ms");
		// one after the other: the second finds the database file open and connects to
		// the first's TCP server
		first = SampleProcess.start("instance-a", arguments);
		second = SampleProcess.start("instance-b", arguments);
	}

	@AfterAll
	static void stopInstances() throws Exception {
		try {
			if (second != null) {
				second.close();
			}
		}
		finally {
			if (first != null) {
				first.close();
			}
		}
	}

	@Test
	void holdsOfOneKeyNeverOverlapAndTheirTokensGrow() throws Exception {
		String key = "e2e-" + UUID.randomUUID();
		List<Callable<List<Answer>>> clients = new ArrayList<>();
		for (SampleProcess instance : List.of(first, second)) {
			for (int client = 0; client < 2; client++) {
				clients.add(() -> {
					List<Answer> holds = new ArrayList<>();
					for (int i = 0; i < 8; i++) {
						holds.add(instance.http().post("/holds?key=" + key + "&millis=20").ok());
					}
					return holds;
				});
			}
		}
		List<Hold> holds = Concurrently.run(clients)
			.stream()
			.flatMap(List::stream)
			.map(Hold::of)
			.sorted(Comparator.comparing(Hold::start))
			.toList();
		assertThat(holds).hasSize(32);
		assertThat(holds).extracting(Hold::instance).contains("instance-a", "instance-b");
		for (int i = 1; i < holds.size(); i++) {
			Hold before = holds.get(i - 1);
			Hold after = holds.get(i);
			assertThat(after.start()).as("%s started before %s ended", after, before).isAfterOrEqualTo(before.end());
			assertThat(after.token()).as("token of %s after %s", after, before).isGreaterThan(before.token());
		}
	}

	@Test
	void countersProtectedByTheLockAreExact() throws Exception {
		String sku = "SKU-" + UUID.randomUUID();
		String account = "ACC-" + UUID.randomUUID();
		first.http().post("/stock/" + sku + "/restock?quantity=100").ok();
		List<Callable<Integer>> clients = new ArrayList<>();
		for (SampleProcess instance : List.of(first, second)) {
			for (int client = 0; client < 2; client++) {
				clients.add(() -> {
					for (int i = 0; i < 10; i++) {
						instance.http().post("/stock/" + sku + "/reservations?quantity=1").ok();
						instance.http().post("/accounts/" + account + "/deposits?amount=1").ok();
					}
					return 10;
				});
			}
		}
		int done = Concurrently.run(clients).stream().mapToInt(Integer::intValue).sum();
		assertThat(done).isEqualTo(40);
		assertThat(second.http().get("/stock/" + sku).ok().number("quantity")).isEqualTo(100 - 40);
		assertThat(second.http().get("/accounts/" + account).ok().number("balance")).isEqualTo(40);
	}

	@Test
	void aHolderPausedPastItsLeaseIsFencedOffByTheToken() throws Exception {
		String account = "ACC-" + UUID.randomUUID();
		first.http().post("/accounts/" + account + "/deposits?amount=1").ok();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			// instance a reads the balance, then stalls 3 s, far beyond its 1 s lease,
			// before writing
			Future<Answer> paused = executor
				.submit(() -> first.http().post("/accounts/" + account + "/deposits?amount=100&pauseMillis=3000"));
			long pausedToken = awaitHeld(first, "account:" + account);
			// instance b gets the lock once a's lease ran out, and writes with a newer
			// token
			Answer successor = second.http().post("/accounts/" + account + "/deposits?amount=5").ok();
			assertThat(successor.number("lockToken")).isGreaterThan(pausedToken);
			Answer refused = paused.get(30, TimeUnit.SECONDS);
			assertThat(refused.status()).as("the paused holder's write: %s", refused).isEqualTo(409);
			assertThat(refused.text("title")).isEqualTo("Stale fencing token");
		}
		finally {
			executor.shutdownNow();
		}
		Answer stored = second.http().get("/accounts/" + account).ok();
		assertThat(stored.number("balance")).as("1 + the successor's 5; the paused write is refused").isEqualTo(6);
	}

	@Test
	void theOncePerClusterJobRunsOnOneInstanceAndIsSkippedOnTheOther() throws Exception {
		for (int round = 0; round < 3; round++) {
			int runsBefore = runs().size();
			List<Answer> answers = Concurrently.run(List.of(() -> first.http().post("/jobs/report/run").ok(),
					() -> second.http().post("/jobs/report/run").ok()));
			assertThat(answers.stream().filter((answer) -> answer.flag("ran")).count())
				.as("round %d: %s", round, answers)
				.isEqualTo(1);
			assertThat(runs()).as("runs recorded after round %d", round).hasSize(runsBefore + 1);
		}
	}

	@Test
	void theCarParkHoldsThreeCarsAcrossBothInstances() throws Exception {
		List<Callable<Answer>> cars = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			SampleProcess instance = (i % 2 == 0) ? first : second;
			String plate = "CAR-" + i;
			cars.add(() -> instance.http().post("/car-park/visits?plate=" + plate + "&stayMillis=4000").ok());
		}
		List<Answer> visits = Concurrently.run(cars);
		assertThat(visits.stream().filter((visit) -> visit.flag("parked")).count()).as("visits: %s", visits)
			.isEqualTo(3);
		assertThat(first.http().get("/car-park").ok().number("mostAtOnce")).isEqualTo(3);
	}

	private static List<?> runs() {
		return first.http().getList("/jobs/report/runs?limit=1000");
	}

	private static long awaitHeld(SampleProcess instance, String key) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			Answer locks = instance.http().get("/actuator/distlockLocks").ok();
			for (Object lease : (List<?>) locks.get("leases")) {
				Map<?, ?> info = (Map<?, ?>) lease;
				if (key.equals(info.get("key"))) {
					return ((Number) info.get("fencingToken")).longValue();
				}
			}
			Thread.sleep(20);
		}
		throw new AssertionError(instance.name() + " never held " + key);
	}

	record Hold(String instance, long token, Instant start, Instant end) {

		static Hold of(Answer answer) {
			return new Hold(answer.text("instance"), answer.number("lockToken"), Instant.parse(answer.text("start")),
					Instant.parse(answer.text("end")));
		}

	}

}
