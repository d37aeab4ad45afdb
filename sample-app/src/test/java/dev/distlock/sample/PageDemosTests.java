package dev.distlock.sample;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.sample.SampleHttp.Answer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page's demos on the default settings (only the schedule's first run is brought
 * forward, so that it holds its lock while the report-job demo runs), started as the page
 * starts them and judged by the outcome each reports: each behaves as its text says. Also
 * what the page reads: every time in {@code /page/timeline} is epoch milliseconds (a JSON
 * number), the only form the page computes with, and the actuator endpoints it polls
 * answer under their ids.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.report-job.initial-delay=0s", "sample.instance-name=page-demos" })
@DirtiesContext
class PageDemosTests {

	@LocalServerPort
	int port;

	SampleHttp http;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.h2Url(PageDemosTests.class));
	}

	@BeforeEach
	void client() {
		this.http = new SampleHttp(this.port);
	}

	@Test
	void everyDemoHasItsTextWithTheSettingsAndItsCode() {
		List<?> demos = this.http.getList("/page/demos");
		assertThat(demos).hasSize(8);
		for (Object each : demos) {
			Map<?, ?> demo = (Map<?, ?>) each;
			assertThat((String) demo.get("description")).as("text of %s", demo.get("path"))
				.isNotBlank()
				.doesNotContain("${");
			assertThat((List<?>) demo.get("code")).as("code of %s", demo.get("path")).isNotEmpty();
		}
		assertThat(demos.toString()).contains("fixed 5s lease", "within 2s", "taken 25s after");
	}

	@Test
	void stockReservationsHoldOneAtATime() throws Exception {
		assertThat(run("stock"))
			.matches("6 reservations of ESPRESSO-MACHINE one at a time, tokens \\d+(, \\d+){5}; \\d+ left");
	}

	@Test
	void thePausedDepositsWriteIsRefused() throws Exception {
		assertThat(run("fenced")).contains("stalled 6500 ms past its 5000 ms lease", "took over with token",
				"its write was refused: Stale fencing token");
	}

	@Test
	void transfersBothWaysKeepTheTotal() throws Exception {
		String first = run("transfer");
		assertThat(first).contains("6 transfers at once", "none deadlocked").endsWith("total 200 before, 200 after");
		assertThat(run("transfer")).endsWith("total 200 before, 200 after");
	}

	@Test
	void threeCarsParkAndTwoAreTurnedAway() throws Exception {
		assertThat(run("car-park")).isEqualTo("3 of 5 cars parked (3 spaces), 2 turned away");
	}

	@Test
	void readersShareAndTheRepricingIsAlone() throws Exception {
		assertThat(run("catalogue")).startsWith("3 readers shared the READ lock, the repricing took WRITE");
	}

	@Test
	void oncePerClusterJobBuildsOnceAndSkipsTwiceWhileTheScheduleHoldsItsLock() throws Exception {
		// the schedule's daily report (first run at startup) holds its lock 25 s after
		// each run; a trigger now builds it or finds it held, and either way it is held
		// through the presses below
		this.http.post("/jobs/report/run").ok();
		for (int press = 0; press < 2; press++) {
			String summary = run("report-job");
			assertThat(summary).as("press %d", press)
				.startsWith("two triggers at once: 1 built, 1 skipped; a third")
				.endsWith("skipped. 1 built, 2 skipped");
		}
	}

	@Test
	void theBatchStepGoesOnWhenTheLastPartIsDone() throws Exception {
		assertThat(run("latch"))
			.matches("latch set to 3; parts done at \\d+ ms, \\d+ ms, \\d+ ms; the waiting step went on at \\d+ ms, "
					+ "\\d+ ms after the last part; 0 left");
	}

	@Test
	void leadershipGoesToTheRivalAndComesBack() throws Exception {
		assertThat(run("leader")).matches("this instance led with term (\\d+) and yielded; the rival led with term "
				+ "(\\d+) \\(@LeaderOnly here: skipped\\); the rival stopped and this instance leads again with term "
				+ "(\\d+) \\(@LeaderOnly: ran, term \\3\\)");
	}

	@Test
	void aDemoCannotBeStartedTwiceWhileItRuns() throws Exception {
		Answer started = this.http.post("/page/demos/car-park");
		assertThat(started.status()).isEqualTo(202);
		Answer again = this.http.post("/page/demos/car-park");
		assertThat(again.status()).as("second start while running: %s", again).isEqualTo(409);
		awaitFinished(started.number("id"));
		assertThat(this.http.post("/page/demos/car-park").status()).as("start after it finished").isEqualTo(202);
	}

	@Test
	void everyTimeThePageReadsIsEpochMilliseconds() throws Exception {
		run("stock");
		Map<String, Object> timeline = this.http.get("/page/timeline").ok().body();
		long now = System.currentTimeMillis();
		for (Object each : (List<?>) timeline.get("runs")) {
			Map<?, ?> run = (Map<?, ?>) each;
			assertEpochMillis(run, "startedAt", now, true);
			assertEpochMillis(run, "finishedAt", now, true);
		}
		for (Object each : (List<?>) timeline.get("calls")) {
			Map<?, ?> call = (Map<?, ?>) each;
			assertEpochMillis(call, "requestedAt", now, false);
			assertEpochMillis(call, "acquiredAt", now, false);
		}
		List<?> leases = (List<?>) timeline.get("leases");
		assertThat(leases).as("the leader's lease at least").isNotEmpty();
		for (Object each : leases) {
			Map<?, ?> lease = (Map<?, ?>) each;
			assertEpochMillis(lease, "acquiredAt", now, true);
			assertEpochMillis(lease, "expiresAt", now + 3_600_000, true);
		}
	}

	@Test
	void theActuatorEndpointsThePagePollsAnswerUnderTheirIds() {
		Answer locks = this.http.get("/actuator/distlockLocks").ok();
		assertThat(String.valueOf(locks.get("providers"))).contains("jdbc");
		Answer leader = this.http.get("/actuator/distlockLeader").ok();
		assertThat(leader.get("leader")).isInstanceOf(Boolean.class);
	}

	private static void assertEpochMillis(Map<?, ?> owner, String name, long notAfter, boolean whole) {
		Object value = owner.get(name);
		if (value == null) {
			return;
		}
		assertThat(value).as("%s of %s", name, owner).isInstanceOf(Number.class);
		double millis = ((Number) value).doubleValue();
		assertThat(millis).as("%s of %s: epoch milliseconds", name, owner)
			.isBetween((double) (notAfter - 3_600_000), (double) notAfter + 1000);
		if (whole) {
			assertThat(value).as("%s of %s: whole milliseconds", name, owner)
				.isInstanceOfAny(Integer.class, Long.class);
		}
	}

	private String run(String demo) throws Exception {
		Answer started = this.http.post("/page/demos/" + demo);
		assertThat(started.status()).as("start of %s: %s", demo, started).isEqualTo(202);
		Map<?, ?> run = awaitFinished(started.number("id"));
		assertThat(run.get("failed")).as("run of %s: %s", demo, run).isEqualTo(false);
		return (String) run.get("summary");
	}

	private Map<?, ?> awaitFinished(long id) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (System.nanoTime() < deadline) {
			for (Object each : (List<?>) this.http.get("/page/timeline").ok().get("runs")) {
				Map<?, ?> run = (Map<?, ?>) each;
				if (((Number) run.get("id")).longValue() == id && run.get("finishedAt") != null) {
					return run;
				}
			}
			Thread.sleep(100);
		}
		throw new AssertionError("Demo run " + id + " did not finish within 90 s");
	}

}
