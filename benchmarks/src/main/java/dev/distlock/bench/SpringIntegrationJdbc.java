package dev.distlock.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.locks.Lock;

import com.zaxxer.hikari.HikariDataSource;

import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * {@code si-jdbc-postgres}: Spring Integration's {@link JdbcLockRegistry} over a
 * {@link DefaultLockRepository} on its {@code INT_LOCK} table (created if missing, from
 * Spring Integration's PostgreSQL schema), in a region of its own per run, with its
 * defaults otherwise (a busy lock is retried every 100 ms).
 */
final class SpringIntegrationJdbc implements Subject {

	static final String SCHEMA = """
			CREATE TABLE IF NOT EXISTS INT_LOCK (
				LOCK_KEY CHAR(36) NOT NULL,
				REGION VARCHAR(100) NOT NULL,
				CLIENT_ID CHAR(36),
				CREATED_DATE TIMESTAMP NOT NULL,
				EXPIRED_AFTER TIMESTAMP NOT NULL,
				constraint INT_LOCK_PK primary key (LOCK_KEY, REGION)
			)""";

	private final HikariDataSource dataSource;

	private final DefaultLockRepository repository;

	private final JdbcLockRegistry registry;

	private final String region;

	SpringIntegrationJdbc(BenchConfig config) throws Exception {
		this.dataSource = Postgres.dataSource(config, "si-jdbc");
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute(SCHEMA);
		}
		Postgres.vacuum(config, "INT_LOCK");
		this.region = "bench-" + config.runId();
		this.repository = new DefaultLockRepository(this.dataSource);
		this.repository.setRegion(this.region);
		this.repository.setTransactionManager(new DataSourceTransactionManager(this.dataSource));
		this.repository.afterPropertiesSet();
		this.repository.afterSingletonsInstantiated();
		this.repository.start();
		this.registry = new JdbcLockRegistry(this.repository, BenchConfig.LEASE);
	}

	@Override
	public Hold lock(String key) throws InterruptedException {
		Lock lock = this.registry.obtain(key);
		lock.lockInterruptibly();
		return lock::unlock;
	}

	@Override
	public void close() throws Exception {
		this.repository.stop();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("DELETE FROM INT_LOCK WHERE REGION = ?")) {
			statement.setString(1, this.region);
			statement.executeUpdate();
		}
		this.repository.close();
		this.dataSource.close();
	}

}
