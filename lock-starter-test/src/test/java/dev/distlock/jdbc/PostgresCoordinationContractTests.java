package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.test.AbstractCoordinationContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordination contract on PostgreSQL, in a lock table of its own; every provider
 * stands for another process on it.
 */
class PostgresCoordinationContractTests extends AbstractCoordinationContractTests<JdbcLockProvider> {

	private static JdbcTestDatabase database;

	@BeforeAll
	static void createTable() {
		database = JdbcTestDatabase.postgres();
	}

	@AfterAll
	static void dropTable() {
		database.close();
	}

	@Override
	protected JdbcLockProvider createProvider() {
		return database.provider().build();
	}

	@Override
	protected LatchProvider createLatchProvider() {
		return new JdbcLatchProvider(database.dataSource(), database.tableName(), null);
	}

	@Test
	void latchAtZeroIsAnnouncedByNotify() throws Exception {
		String latch = this.prefix + "notified";
		CountDownLatch notified = new CountDownLatch(1);
		try (JdbcLatchProvider waiting = new JdbcLatchProvider(database.dataSource(), database.tableName(), null);
				JdbcLatchProvider counting = new JdbcLatchProvider(database.dataSource(), database.tableName(), null);
				ReleaseSubscription subscription = waiting.subscribe(latch, notified::countDown)) {
			assertThat(subscription.isActive()).as("listening on PostgreSQL").isTrue();
			assertThat(counting.trySetCount(latch, 2, Duration.ofMinutes(1))).isTrue();
			counting.countDown(latch);
			assertThat(notified.await(300, TimeUnit.MILLISECONDS)).as("notified above zero").isFalse();
			counting.countDown(latch);
			assertThat(notified.await(2, TimeUnit.SECONDS)).as("notified at zero").isTrue();
		}
	}

}
