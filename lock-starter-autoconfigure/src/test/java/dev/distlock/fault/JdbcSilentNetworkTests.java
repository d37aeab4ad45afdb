package dev.distlock.fault;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.JdbcLockSchema;
import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code jdbc} backend on PostgreSQL and MariaDB when the network to the database
 * goes silent (a partition or a hung server: no reset, no refusal, bytes held both ways
 * by a {@link TcpProxy}), in an application configured as a new user would:
 * auto-configuration, {@code spring.datasource.url} (no driver timeout such as pgjdbc's
 * {@code socketTimeout}), HikariCP's defaults (30 s connection timeout), distlock's
 * defaults. Every call must end by its bound: an acquisition by its wait + the call
 * timeout (1 s), a release 1 s after the work ends. After the heal the application must
 * lock again without a restart, and no key asked for during the silence may stay held (a
 * grant that reached the database late is released in the background with its own token).
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcSilentNetworkTests {

	private static final Duration WAIT = Duration.ofSeconds(2);

	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

	/** Scheduling on a 2-core machine shared with other builds. */
	private static final Duration SLACK = Duration.ofMillis(500);

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "mariadb" })
	void everyCallEndsInItsBoundWhileTheNetworkIsSilentAndLockingResumesAfter(String database) throws Exception {
		JdbcServer server = database.equals("postgresql") ? TestServers.postgres() : TestServers.mariadb();
		DriverManagerDataSource direct = new DriverManagerDataSource(server.url(), server.username(),
				server.password());
		JdbcLockSchema.create(direct, JdbcLockSchema.DEFAULT_TABLE_NAME, null);
		JdbcTemplate jdbc = new JdbcTemplate(direct);
		String prefix = "silent-" + UUID.randomUUID() + "-";
		List<String> measured = new ArrayList<>();
		try (TcpProxy proxy = TcpProxy.start(port(server));
				ConfigurableApplicationContext context = application(server, proxy.port())) {
			LockTemplate locks = context.getBean(LockTemplate.class);
			locks.execute(request(prefix + "warm-up"), () -> null);

			CountDownLatch holding = new CountDownLatch(1);
			CountDownLatch endWork = new CountDownLatch(1);
			long[] workEnded = new long[1];
			CompletableFuture<Long> holder = CompletableFuture.supplyAsync(() -> {
				locks.execute(request(prefix + "held"), () -> {
					holding.countDown();
					endWork.await();
					workEnded[0] = System.nanoTime();
					return null;
				});
				return System.nanoTime();
			});
			assertThat(holding.await(10, TimeUnit.SECONDS)).as("holder got the lock").isTrue();
			CompletableFuture<Call> waiter = CompletableFuture.supplyAsync(() -> call(locks, prefix + "held"));
			Thread.sleep(500); // the waiter is subscribed and polling

			proxy.cut();
			long cut = System.nanoTime();
			Thread.sleep(300);
			endWork.countDown();
			long holderReturned = holder.get(30, TimeUnit.SECONDS);
			Duration release = Duration.ofNanos(holderReturned - workEnded[0]);
			measured.add("holder's call returned " + release.toMillis() + " ms after its work ended");
			Call waited = waiter.get(30, TimeUnit.SECONDS);
			measured.add("waiter ended after " + waited.took().toMillis() + " ms (" + waited.outcome() + ")");
			List<Call> fresh = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				Call call = call(locks, prefix + "fresh-" + i);
				fresh.add(call);
				measured
					.add("fresh key " + i + " ended after " + call.took().toMillis() + " ms (" + call.outcome() + ")");
			}
			Duration silence = Duration.ofNanos(System.nanoTime() - cut);

			proxy.heal();
			long healed = System.nanoTime();
			Duration relocked = null;
			while (relocked == null && System.nanoTime() - healed < TimeUnit.SECONDS.toNanos(30)) {
				Call call = call(locks, prefix + "after-heal");
				if (call.acquired()) {
					relocked = Duration.ofNanos(System.nanoTime() - healed);
				}
			}
			measured.add("locked again " + ((relocked != null) ? relocked.toMillis() + " ms" : "never")
					+ " after the heal (silence " + silence.toMillis() + " ms)");
			List<String> held = List.of();
			Duration cleared = null;
			String now = database.equals("postgresql") ? "now()" : "UTC_TIMESTAMP(6)";
			while (System.nanoTime() - healed < TimeUnit.SECONDS.toNanos(30)) {
				held = jdbc.queryForList("SELECT CAST(lock_key AS CHAR(255)) FROM " + JdbcLockSchema.DEFAULT_TABLE_NAME
						+ " WHERE lock_key LIKE ? AND lease_until > " + now, String.class, "%" + prefix + "%");
				if (held.isEmpty()) {
					cleared = Duration.ofNanos(System.nanoTime() - healed);
					break;
				}
				Thread.sleep(100);
			}
			measured.add("keys of the silence free " + ((cleared != null) ? cleared.toMillis() + " ms" : "never")
					+ " after the heal");
			System.out.println("jdbc silent network, " + database + ": " + String.join("; ", measured));

			assertThat(waited.took()).as("waiter (wait %s): %s", WAIT, measured)
				.isLessThanOrEqualTo(WAIT.plus(CALL_TIMEOUT).plus(SLACK));
			assertThat(waited.acquired()).as("waiter acquired during the silence").isFalse();
			assertThat(release).as("holder's release: %s", measured).isLessThanOrEqualTo(CALL_TIMEOUT.plus(SLACK));
			for (Call call : fresh) {
				assertThat(call.took()).as("fresh key (wait %s): %s", WAIT, measured)
					.isLessThanOrEqualTo(WAIT.plus(CALL_TIMEOUT).plus(SLACK));
				assertThat(call.acquired()).as("fresh key acquired during the silence").isFalse();
			}
			assertThat(relocked).as("time to lock again after the heal: %s", measured)
				.isNotNull()
				.isLessThanOrEqualTo(Duration.ofSeconds(5));
			assertThat(held).as("keys still held after the heal, checked on a direct connection: %s", measured)
				.isEmpty();
			assertThat(cleared).as("time until no key of the silence was held: %s", measured)
				.isLessThanOrEqualTo(Duration.ofSeconds(10));
		}
	}

	private static ConfigurableApplicationContext application(JdbcServer server, int proxyPort) {
		URI address = URI.create(server.url().substring("jdbc:".length()));
		String url = "jdbc:" + address.getScheme() + "://127.0.0.1:" + proxyPort + address.getPath();
		// several backends are on the test class path: a new user's application has only
		// the one it names
		return new SpringApplicationBuilder(SilentNetworkApp.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.run("--spring.datasource.url=" + url, "--spring.datasource.username=" + server.username(),
					"--spring.datasource.password=" + server.password(), "--distlock.provider=jdbc");
	}

	private static int port(JdbcServer server) {
		URI address = URI.create(server.url().substring("jdbc:".length()));
		return (address.getPort() > 0) ? address.getPort() : (address.getScheme().equals("mariadb") ? 3306 : 5432);
	}

	private static LockRequest request(String key) {
		return LockRequest.builder(key).waitTime(WAIT).build();
	}

	private static Call call(LockTemplate locks, String key) {
		long start = System.nanoTime();
		String outcome;
		boolean acquired;
		try {
			locks.execute(request(key), () -> null);
			outcome = "acquired";
			acquired = true;
		}
		catch (LockAcquisitionException ex) {
			outcome = "LockAcquisitionException";
			acquired = false;
		}
		return new Call(Duration.ofNanos(System.nanoTime() - start), acquired, outcome);
	}

	private record Call(Duration took, boolean acquired, String outcome) {
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class SilentNetworkApp {

	}

}
