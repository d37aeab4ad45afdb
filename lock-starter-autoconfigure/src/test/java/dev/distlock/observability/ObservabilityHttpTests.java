package dev.distlock.observability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole stack through real HTTP calls to a running application:
 * {@code /actuator/distlockLocks} shows a lease while another thread holds it and nothing
 * afterwards, {@code /actuator/metrics} has the lock meters, and {@code /actuator/health}
 * goes DOWN when a backend's server (a real H2 TCP server, the test fixture) stops.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "distlock.provider=local",
				"management.endpoints.web.exposure.include=distlockLocks,health,metrics",
				"management.endpoint.health.show-details=always", "management.health.defaults.enabled=false",
				"management.health.distlock.enabled=true" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ObservabilityHttpTests {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@LocalServerPort
	private int port;

	@Autowired
	private LockTemplate lockTemplate;

	@Autowired
	private H2TcpFixtureLockProvider fixture;

	@Test
	void locksEndpointShowsALeaseWhileHeldAndNothingAfter() throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
			Thread.currentThread().setName("order-worker");
			this.lockTemplate.run(LockRequest.builder("order:42").name("orders").build(), () -> {
				held.countDown();
				await(done);
			});
		});
		try {
			assertThat(held.await(10, TimeUnit.SECONDS)).as("the holder got the lock").isTrue();
			HttpResponse<String> during = get("/actuator/distlockLocks");
			assertThat(during.statusCode()).isEqualTo(200);
			DocumentContext json = JsonPath.parse(during.body());
			List<String> keys = json.read("$.leases[*].key");
			assertThat(keys).as(during.body()).containsExactly("order:42");
			assertThat(json.<String>read("$.leases[0].name")).isEqualTo("orders");
			assertThat(json.<String>read("$.leases[0].type")).isEqualTo("MUTEX");
			assertThat(json.<String>read("$.leases[0].provider")).isEqualTo("local");
			assertThat(json.<String>read("$.leases[0].holderThread")).isEqualTo("order-worker");
			assertThat(json.<Boolean>read("$.leases[0].valid")).isTrue();
			assertThat(json.<String>read("$.leases[0].acquiredAt")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
			assertThat(json.<String>read("$.leases[0].expiresAt")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
			assertThat(json.<Number>read("$.leases[0].fencingToken").longValue()).isPositive();
			assertThat(json.<Boolean>read("$.providers.local.defaultProvider")).isTrue();
			assertThat(json.<String>read("$.providers.local.status")).isEqualTo("UP");
			List<String> types = json.read("$.providers.local.types");
			assertThat(types).contains("MUTEX", "FAIR", "READ", "WRITE", "SEMAPHORE");
			String owner = json.read("$.leases[0].owner");
			HttpResponse<String> delete = this.http.send(
					HttpRequest.newBuilder(uri("/actuator/distlockLocks/" + owner)).DELETE().build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(delete.statusCode()).as("release is off by default").isIn(404, 405);
			assertThat(this.lockTemplate.activeLeases()).singleElement()
				.satisfies((lease) -> assertThat(lease.valid()).isTrue());
		}
		finally {
			done.countDown();
		}
		holder.get(10, TimeUnit.SECONDS);
		HttpResponse<String> after = get("/actuator/distlockLocks");
		assertThat(after.statusCode()).isEqualTo(200);
		List<Object> leases = JsonPath.parse(after.body()).read("$.leases");
		assertThat(leases).as(after.body()).isEmpty();
		HttpResponse<String> metrics = get("/actuator/metrics/distlock.hold?tag=name:orders");
		assertThat(metrics.statusCode()).isEqualTo(200);
		List<Number> count = JsonPath.parse(metrics.body()).read("$.measurements[?(@.statistic=='COUNT')].value");
		assertThat(count).as(metrics.body()).singleElement().satisfies((n) -> assertThat(n.intValue()).isEqualTo(1));
		HttpResponse<String> names = get("/actuator/metrics");
		List<String> meterNames = JsonPath.parse(names.body()).read("$.names");
		// the listener's meters, and Boot's timers of the observations beside them under
		// other names
		assertThat(meterNames).contains("distlock.acquire", "distlock.hold", "distlock.leases.active",
				"distlock.lock.acquire", "distlock.lock.hold");
	}

	@Test
	void healthGoesDownWhenABackendServerStops() throws Exception {
		HttpResponse<String> up = get("/actuator/health");
		assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
		DocumentContext json = JsonPath.parse(up.body());
		assertThat(json.<String>read("$.status")).isEqualTo("UP");
		assertThat(json.<String>read("$.components.distlock.components.local.status")).isEqualTo("UP");
		assertThat(json.<String>read("$.components.distlock.components.h2fixture.status")).isEqualTo("UP");
		this.fixture.stopServer();
		HttpResponse<String> down = get("/actuator/health");
		assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
		json = JsonPath.parse(down.body());
		assertThat(json.<String>read("$.status")).isEqualTo("DOWN");
		assertThat(json.<String>read("$.components.distlock.status")).isEqualTo("DOWN");
		assertThat(json.<String>read("$.components.distlock.components.h2fixture.status")).isEqualTo("DOWN");
		assertThat(json.<String>read("$.components.distlock.components.h2fixture.details.error"))
			.contains("Connection refused");
		assertThat(json.<String>read("$.components.distlock.components.local.status")).isEqualTo("UP");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ObservedApplication {

		@Bean(destroyMethod = "close")
		H2TcpFixtureLockProvider h2FixtureLockProvider() throws Exception {
			return H2TcpFixtureLockProvider.start();
		}

	}

}
