package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.test.TestServers;
import dev.distlock.test.TestServers.JdbcServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PostgreSQL notifier's subscriber registry: a listener added while the last listener
 * of the same payload leaves must still be reached by the next notification (an orphaned
 * one would wait for the fallback poll every time).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresNotifierTests {

	/** Outside the pool, as the provider opens it. */
	private static Connection connect() throws SQLException {
		JdbcServer server = TestServers.postgres();
		return DriverManager.getConnection(server.url(), server.username(), server.password());
	}

	private static long deadline() {
		return System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
	}

	@Test
	void listenerAddedWhileTheLastOneOfItsPayloadLeavesIsNeverOrphaned() throws Exception {
		String channel = "dl_notify_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try (PostgresNotifier notifier = new PostgresNotifier(PostgresNotifierTests::connect, channel,
				Duration.ofSeconds(1))) {
			notifier.subscribe("warm-up", () -> {
			}, deadline()).close();
			String payload = "Mkey";
			AtomicBoolean stop = new AtomicBoolean();
			Thread churn = new Thread(() -> {
				while (!stop.get()) {
					try {
						notifier.subscribe(payload, () -> {
						}, deadline()).close();
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			});
			churn.start();
			int orphaned = 0;
			int rounds = 0;
			try {
				long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
				while (orphaned == 0 && System.nanoTime() < end) {
					rounds++;
					AtomicInteger woken = new AtomicInteger();
					ReleaseSubscription subscription = notifier.subscribe(payload, woken::incrementAndGet, deadline());
					notifier.dispatch(payload);
					if (woken.get() == 0) {
						orphaned++;
					}
					subscription.close();
				}
			}
			finally {
				stop.set(true);
				churn.join();
			}
			assertThat(orphaned).as("listeners a notification missed, in %d subscriptions", rounds).isZero();
		}
	}

}
