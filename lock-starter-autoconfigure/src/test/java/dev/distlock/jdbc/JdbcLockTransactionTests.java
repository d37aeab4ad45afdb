package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A lock taken with {@link LockTemplate} inside a {@code @Transactional} method lives
 * outside that transaction: other processes see it held while the transaction runs, and a
 * rollback neither frees it early nor keeps it. The provider is given a
 * {@link TransactionAwareDataSourceProxy}, whose connections would join the transaction,
 * to prove it unwraps it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcLockTransactionTests {

	private Map<String, JdbcTestDatabase> databases;

	private final String orders = "orders_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	@BeforeAll
	void createTables() {
		this.databases = Map.of("h2", JdbcTestDatabase.h2(), "postgresql", JdbcTestDatabase.postgres());
		this.databases.values()
			.forEach((db) -> new JdbcTemplate(db.dataSource())
				.execute("CREATE TABLE " + this.orders + " (id VARCHAR(64) PRIMARY KEY)"));
	}

	@AfterAll
	void dropTables() {
		this.databases.values().forEach((db) -> {
			new JdbcTemplate(db.dataSource()).execute("DROP TABLE " + this.orders);
			db.close();
		});
	}

	private ApplicationContextRunner contextRunner(String database) {
		JdbcTestDatabase db = this.databases.get(database);
		return new ApplicationContextRunner().withUserConfiguration(TransactionalConfiguration.class)
			.withBean(DataSource.class, () -> new DelegatingDataSource(db.dataSource())) // the
																							// context
																							// must
																							// not
																							// close
																							// the
																							// pool
			.withBean("tableName", String.class, db::tableName)
			.withBean("ordersTable", String.class, () -> this.orders);
	}

	/** Another process on the same table, with its own provider. */
	private LockTemplate otherProcess(String database) {
		JdbcLockProvider provider = this.databases.get(database).provider().build();
		return new LockTemplate(List.of(provider), "jdbc", LockSettings.defaults(), List.of());
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql" })
	void lockHeldInsideARolledBackTransactionWasVisibleAndIsFreedOnRelease(String database) {
		LockTemplate other = otherProcess(database);
		String key = "tx-" + UUID.randomUUID();
		String order = UUID.randomUUID().toString();
		contextRunner(database).run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThatIllegalStateException()
				.isThrownBy(() -> service.placeOrderUnderLock(order, key, () -> tryElsewhere(other, key)))
				.withMessage("roll back");
			assertThat(service.seenWhileHeld()).as("another process while the transaction held the lock").isEmpty();
			assertThat(service.ordersSeenElsewhere()).as("the order row was only in the open transaction").isZero();
			assertThat(service.orderCount(order)).as("the transaction was rolled back").isZero();
			Lease next = tryElsewhere(other, key).orElseThrow(
					() -> new AssertionError("the lock released inside the rolled-back transaction is still held"));
			next.release();
		});
		other.close();
		other.defaultProvider().close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql" })
	void lockTakenInARolledBackTransactionStaysHeldUntilReleased(String database) {
		LockTemplate other = otherProcess(database);
		String key = "tx-" + UUID.randomUUID();
		contextRunner(database).run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			Lease lease = service.lockAndRollBack(UUID.randomUUID().toString(), key);
			assertThat(lease.isValid()).isTrue();
			assertThat(tryElsewhere(other, key)).as("held after the transaction rolled back").isEmpty();
			lease.release();
			tryElsewhere(other, key).orElseThrow(() -> new AssertionError("free after release")).release();
		});
		other.close();
		other.defaultProvider().close();
	}

	private static Optional<Lease> tryElsewhere(LockTemplate other, String key) {
		// from another thread, as another process would
		return CompletableFuture
			.supplyAsync(() -> other.tryAcquire(LockRequest.builder(key).waitTime(Duration.ofMillis(300)).build()))
			.join();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionalConfiguration {

		@Bean
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean(destroyMethod = "close")
		JdbcLockProvider jdbcLockProvider(DataSource dataSource, String tableName) {
			return JdbcLockProvider.builder(new TransactionAwareDataSourceProxy(dataSource))
				.tableName(tableName)
				.build();
		}

		@Bean(destroyMethod = "close")
		LockTemplate lockTemplate(JdbcLockProvider provider) {
			return new LockTemplate(provider);
		}

		@Bean
		OrderService orderService(DataSource dataSource, LockTemplate locks, String ordersTable) {
			return new OrderService(new JdbcTemplate(dataSource), locks, ordersTable);
		}

	}

	static class OrderService {

		private final JdbcTemplate jdbc;

		private final LockTemplate locks;

		private final String orders;

		volatile Optional<Lease> seenWhileHeld = Optional.empty();

		volatile int ordersSeenElsewhere = -1;

		OrderService(JdbcTemplate jdbc, LockTemplate locks, String orders) {
			this.jdbc = jdbc;
			this.locks = locks;
			this.orders = orders;
		}

		@Transactional
		public void placeOrderUnderLock(String order, String key, Supplier<Optional<Lease>> elsewhere) {
			this.jdbc.update("INSERT INTO " + this.orders + " (id) VALUES (?)", order);
			try (Lease lease = this.locks.acquire(LockRequest.of(key))) {
				this.seenWhileHeld = elsewhere.get();
				this.seenWhileHeld.ifPresent(Lease::release);
				this.ordersSeenElsewhere = CompletableFuture.supplyAsync(() -> orderCount(order)).join();
			}
			throw new IllegalStateException("roll back");
		}

		@Transactional
		public Lease lockAndRollBack(String order, String key) {
			this.jdbc.update("INSERT INTO " + this.orders + " (id) VALUES (?)", order);
			Lease lease = this.locks.acquire(LockRequest.of(key));
			TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
			return lease;
		}

		// read through methods: the fields of the transactional proxy itself are never
		// set
		public Optional<Lease> seenWhileHeld() {
			return this.seenWhileHeld;
		}

		public int ordersSeenElsewhere() {
			return this.ordersSeenElsewhere;
		}

		public int orderCount(String order) {
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.orders + " WHERE id = ?", Integer.class,
					order);
		}

	}

}
