package dev.distlock.jdbc;

import java.time.Duration;

import dev.distlock.core.LockConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The JDBC latch provider beside a lock table created before latches existed: the
 * application starts, latches fail with a message saying how to create their table, and
 * work once it exists.
 */
class JdbcLatchProviderTests {

	private final JdbcTestDatabase database = JdbcTestDatabase.h2();

	@AfterEach
	void dropTable() {
		this.database.close();
	}

	@Test
	void missingLatchTableFailsEachUseNamingItUntilItIsCreated() throws Exception {
		String latchTable = JdbcLockSchema.latchTableName(this.database.tableName());
		JdbcTemplate jdbc = new JdbcTemplate(this.database.dataSource());
		jdbc.execute("DROP TABLE " + latchTable);
		try (JdbcLatchProvider provider = new JdbcLatchProvider(this.database.dataSource(), this.database.tableName(),
				null)) {
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> provider.trySetCount("l", 1, Duration.ofMinutes(1)))
				.withMessageContaining("latch table " + latchTable + " is missing")
				.withMessageContaining("dev/distlock/jdbc/schema-h2.sql");
			JdbcLockSchema.create(this.database.dataSource(), this.database.tableName(), null);
			assertThat(provider.trySetCount("l", 1, Duration.ofMinutes(1))).isTrue();
			assertThat(provider.count("l")).isEqualTo(1);
		}
	}

}
