package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Borrowing a connection within a call's deadline from a pool that stops giving
 * connections: each call fails by its call timeout, and once
 * {@value BoundedConnections#MAX_ABANDONED} borrows the callers gave up on still wait for
 * the pool, new calls fail at once instead of leaving one more thread waiting; when the
 * pool gives connections again, so does the provider. On PostgreSQL: H2 connections are
 * borrowed on the caller's thread. A connection whose call succeeded serves the next call
 * on the caller's thread and goes back to the pool once idle.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BoundedConnectionsTests {

	private final JdbcTestDatabase database = JdbcTestDatabase.postgres();

	private final CountDownLatch poolBack = new CountDownLatch(1);

	private volatile boolean poolStuck;

	@AfterEach
	void dropTable() {
		this.poolBack.countDown();
		this.database.close();
	}

	@Test
	void callsFailByTheirTimeoutThenAtOnceWhileThePoolGivesNothing() throws Exception {
		DelegatingDataSource stuckPool = new DelegatingDataSource(this.database.dataSource()) {

			@Override
			public Connection getConnection() throws SQLException {
				if (BoundedConnectionsTests.this.poolStuck) {
					try {
						BoundedConnectionsTests.this.poolBack.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return super.getConnection();
			}

		};
		JdbcLockProvider provider = this.database.provider(stuckPool)
			.callTimeout(Duration.ofMillis(100))
			.cleanupInterval(Duration.ZERO)
			.build();
		try {
			LockAttempt probe = new LockAttempt("probe", LockType.MUTEX, 1, Duration.ofSeconds(1), "o");
			this.poolStuck = true;
			for (int i = 0; i < BoundedConnections.MAX_ABANDONED; i++) {
				long start = System.nanoTime();
				assertThatExceptionOfType(CannotGetJdbcConnectionException.class)
					.isThrownBy(() -> provider.checkHealth(probe))
					.withMessageContaining("within its call deadline");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("call %d with the pool stuck", i)
					.isBetween(Duration.ofMillis(90), Duration.ofMillis(1000));
			}
			long start = System.nanoTime();
			assertThatExceptionOfType(CannotGetJdbcConnectionException.class)
				.isThrownBy(() -> provider.checkHealth(probe))
				.withMessageContaining("earlier borrows are still waiting for the pool");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("call once the borrows pile up")
				.isLessThan(Duration.ofMillis(90));

			this.poolStuck = false;
			this.poolBack.countDown();
			long back = System.nanoTime();
			boolean answered = false;
			while (!answered && System.nanoTime() - back < TimeUnit.SECONDS.toNanos(10)) {
				try {
					provider.checkHealth(probe);
					answered = true;
				}
				catch (CannotGetJdbcConnectionException ex) {
					Thread.sleep(20);
				}
			}
			assertThat(answered).as("health check once the pool gives connections again").isTrue();
		}
		finally {
			provider.close();
		}
	}

	@Test
	void connectionOfASucceededCallServesTheNextCallsAndGoesBackToThePoolWhenIdle() throws Exception {
		AtomicInteger borrows = new AtomicInteger();
		DelegatingDataSource counting = new DelegatingDataSource(this.database.dataSource()) {

			@Override
			public Connection getConnection() throws SQLException {
				borrows.incrementAndGet();
				return super.getConnection();
			}

		};
		JdbcLockProvider provider = this.database.provider(counting).cleanupInterval(Duration.ZERO).build();
		try {
			int calls = 0;
			borrows.set(0);
			for (int i = 0; i < 10; i++) {
				AttemptOutcome<JdbcHeldLock> held = provider
					.tryAcquire(new LockAttempt("warm", LockType.MUTEX, 1, Duration.ofSeconds(30), "o-" + i));
				assertThat(held.isAcquired()).isTrue();
				provider.release(held.lock());
				calls += 2;
			}
			assertThat(borrows.get()).as("connections borrowed from the pool for %d calls in a row", calls)
				.isLessThan(calls);

			long idle = System.nanoTime();
			while (this.database.dataSource().getHikariPoolMXBean().getActiveConnections() > 0
					&& System.nanoTime() - idle < TimeUnit.SECONDS.toNanos(10)) {
				Thread.sleep(20);
			}
			assertThat(this.database.dataSource().getHikariPoolMXBean().getActiveConnections())
				.as("connections out of the pool once the calls stopped")
				.isZero();

			AttemptOutcome<JdbcHeldLock> held = provider
				.tryAcquire(new LockAttempt("warm", LockType.MUTEX, 1, Duration.ofSeconds(30), "o-last"));
			provider.release(held.lock());
		}
		finally {
			provider.close();
		}
		assertThat(this.database.dataSource().getHikariPoolMXBean().getActiveConnections())
			.as("connections out of the pool once the provider closed")
			.isZero();
	}

}
