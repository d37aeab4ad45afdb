package dev.distlock.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.fencing.JdbcFencing;
import dev.distlock.sample.SampleHttp.Answer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application started on one profile (a subclass per backend) against the real
 * server, driven over HTTP: every service answers, each under its own kind of lock, on
 * the profile's backend. Lock keys carry a random prefix, so runs in parallel on the
 * shared servers never meet.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.report-job.initial-delay=1h", "sample.report-job.interval=1h",
				"sample.report-job.duration=1500ms", "sample.report-job.hold-at-least=1s", "sample.account.lease=1s",
				"sample.car-park.wait-time=300ms" })
@DirtiesContext
abstract class AbstractProfileTests {

	static final String KEY_PREFIX = "sample-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	@LocalServerPort
	int port;

	@Autowired
	LockTemplate locks;

	@Autowired
	JdbcFencing fencing;

	SampleHttp http;

	@DynamicPropertySource
	static void keyPrefix(DynamicPropertyRegistry registry) {
		registry.add("distlock.key-prefix", () -> KEY_PREFIX);
	}

	/** The provider the profile's locks must use. */
	abstract String backend();

	@BeforeEach
	void client() {
		this.http = new SampleHttp(this.port);
	}

	@Test
	void locksOnTheProfilesBackend() {
		assertThat(this.locks.defaultProvider().name()).isEqualTo(backend());
		Answer health = this.http.get("/actuator/health").ok();
		assertThat(health.text("status")).isEqualTo("UP");
		assertThat(String.valueOf(health.body().get("components"))).contains("distlock").contains(backend());
	}

	@Test
	void reservesStockUnderTheSkusLock() {
		String sku = "SKU-" + UUID.randomUUID();
		assertThat(this.http.post("/stock/" + sku + "/restock?quantity=5").ok().number("quantity")).isEqualTo(5);
		Answer reservation = this.http.post("/stock/" + sku + "/reservations?quantity=2").ok();
		assertThat(reservation.number("remaining")).isEqualTo(3);
		assertThat(reservation.number("lockToken")).isPositive();
		Answer tooMany = this.http.post("/stock/" + sku + "/reservations?quantity=4");
		assertThat(tooMany.status()).as("reserving more than is left: %s", tooMany).isEqualTo(409);
		assertThat(this.http.get("/stock/" + sku).ok().number("quantity")).isEqualTo(3);
	}

	@Test
	void readsUnderReadAndRepricesUnderWrite() {
		Answer read = this.http.get("/prices").ok();
		assertThat((List<?>) read.get("prices")).hasSize(3);
		Answer repriced = this.http.post("/prices/reprice?percent=0").ok();
		assertThat((List<?>) repriced.get("prices")).isEqualTo(read.get("prices"));
		assertThat(repriced.number("lockToken")).as("token of the WRITE after the READ of the same lock")
			.isGreaterThan(read.number("lockToken"));
	}

	@Test
	void carParkAdmitsThreeCarsAtOnceAndTurnsTheRestAway() throws Exception {
		List<Callable<Answer>> cars = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			String plate = "CAR-" + i;
			cars.add(() -> this.http.post("/car-park/visits?plate=" + plate + "&stayMillis=4000").ok());
		}
		List<Answer> visits = Concurrently.run(cars);
		long parked = visits.stream().filter((visit) -> visit.flag("parked")).count();
		assertThat(parked).as("cars parked of 5 arriving together at 3 spaces: %s", visits).isEqualTo(3);
		Answer occupancy = this.http.get("/car-park").ok();
		assertThat(occupancy.number("mostAtOnce")).isEqualTo(3);
	}

	@Test
	void fencingTokenRefusesAHolderPausedPastItsLease() throws Exception {
		String account = "ACC-" + UUID.randomUUID();
		this.http.post("/accounts/" + account + "/deposits?amount=1").ok();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		// a second LockTemplate on the same backend plays a second instance of the
		// application (in this JVM, the
		// template's local queue would keep a second caller out until the paused holder
		// returns)
		LockProvider<?> provider = this.locks.defaultProvider();
		try (LockTemplate otherInstance = new LockTemplate(List.of(provider), provider.name(), this.locks.settings(),
				List.of())) {
			// this deposit stalls 3 s between reading and writing the balance; its lease
			// is 1 s
			Future<Answer> paused = executor
				.submit(() -> this.http.post("/accounts/" + account + "/deposits?amount=100&pauseMillis=3000"));
			long pausedToken = awaitHeld("account:" + account);
			long successorToken;
			try (Lease lease = otherInstance
				.acquire(LockRequest.builder("account:" + account).waitTime(Duration.ofSeconds(10)).build())) {
				successorToken = lease.fencingToken();
				assertThat(successorToken).as("token after the paused holder's").isGreaterThan(pausedToken);
				long balance = this.http.get("/accounts/" + account).ok().number("balance");
				int written = this.fencing.update("account")
					.set("balance", balance + 5)
					.where("id", account)
					.execute(lease);
				assertThat(written).as("the successor's fenced write").isOne();
			}
			Answer refused = paused.get(30, TimeUnit.SECONDS);
			assertThat(refused.status()).as("the paused holder's write: %s", refused).isEqualTo(409);
			assertThat(refused.text("title")).isEqualTo("Stale fencing token");
			Answer stored = this.http.get("/accounts/" + account).ok();
			assertThat(stored.number("balance")).as("the paused holder's write is refused").isEqualTo(6);
			assertThat(stored.number("fencingToken")).isEqualTo(successorToken);
		}
		finally {
			executor.shutdownNow();
		}
	}

	private long awaitHeld(String key) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			for (LeaseSnapshot lease : this.locks.activeLeases()) {
				if (lease.key().equals(key)) {
					return lease.fencingToken();
				}
			}
			Thread.sleep(10);
		}
		throw new AssertionError("The deposit never took the lock " + key + "; held: " + this.locks.activeLeases());
	}

	@Test
	void reportJobTriggeredTwiceAtOnceRunsOnceAndSkipsOnce() throws Exception {
		List<Answer> runs = Concurrently
			.run(List.of(() -> this.http.post("/jobs/report/run").ok(), () -> this.http.post("/jobs/report/run").ok()));
		assertThat(runs.stream().filter((run) -> run.flag("ran")).count()).as("runs: %s", runs).isEqualTo(1);
	}

	@Test
	void contentionDemoKeepsTheCounterExact() {
		Answer demo = this.http.get("/demo?threads=4&ops=200").ok();
		assertThat(demo.text("backend")).isEqualTo(backend());
		assertThat(demo.number("violations")).as("demo: %s", demo).isZero();
		assertThat(demo.number("failed")).isZero();
		assertThat(demo.number("counter")).isEqualTo(200);
	}

}
