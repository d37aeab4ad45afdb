package dev.distlock.jdbc;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Latches live outside the caller's transaction, as locks do: inside a Spring-managed
 * transaction on the same {@code DataSource} a count-down is visible to others at once
 * and survives a rollback, a latch counted down to zero by another process is seen at
 * once under REPEATABLE READ (MariaDB's default), and setting a latch that exists leaves
 * the caller's transaction usable (PostgreSQL aborts a transaction on a failed
 * statement).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcLatchTransactionTests {

	private final JdbcTestDatabases databases = JdbcTestDatabases.all();

	@AfterAll
	void dropTables() {
		this.databases.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb" })
	void latchCallsInsideATransactionUseTheirOwnConnections(String name) throws Exception {
		JdbcTestDatabase database = this.databases.get(name);
		TransactionTemplate transactions = new TransactionTemplate(
				new DataSourceTransactionManager(database.dataSource()));
		JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
		String latch = "latch-tx-" + UUID.randomUUID();
		try (JdbcLatchProvider latches = new JdbcLatchProvider(database.dataSource(), database.tableName(), null)) {
			assertThat(latches.trySetCount(latch, 3, Duration.ofMinutes(1))).isTrue();

			transactions.executeWithoutResult((status) -> {
				latches.countDown(latch);
				long seenByOthers = CompletableFuture.supplyAsync(() -> latches.count(latch)).join();
				assertThat(seenByOthers).as("count seen by another thread before the caller's commit").isEqualTo(2);
				status.setRollbackOnly();
			});
			assertThat(latches.count(latch)).as("count after the caller's transaction rolled back").isEqualTo(2);

			Integer usable = transactions.execute((status) -> {
				assertThat(latches.trySetCount(latch, 5, Duration.ofMinutes(1))).as("latch set again").isFalse();
				return jdbc.queryForObject("SELECT 1", Integer.class);
			});
			assertThat(usable).as("the caller's transaction after trySetCount of an existing latch").isEqualTo(1);

			transactions.executeWithoutResult((status) -> {
				assertThat(latches.count(latch)).isEqualTo(2);
				CompletableFuture.runAsync(() -> {
					latches.countDown(latch);
					latches.countDown(latch);
				}).join();
				assertThat(latches.count(latch)).as("count inside a transaction after others counted down to zero")
					.isZero();
			});
		}
	}

}
