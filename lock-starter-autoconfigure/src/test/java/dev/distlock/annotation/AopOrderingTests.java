package dev.distlock.annotation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.Lease;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the {@code @DistributedLock} advisor nests with {@code @Transactional} on a real H2
 * transaction: by default the lock is taken before the transaction begins and released
 * after it commits (so the next holder sees the committed data);
 * {@code distlock.aop.order} moves it inside.
 */
@Timeout(60)
class AopOrderingTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				TransactionAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local")
		.withBean(Events.class)
		.withBean(OrderWriter.class);

	@Test
	void byDefaultTheLockIsReleasedAfterCommit() {
		this.contextRunner.run((context) -> {
			List<String> events = writeOnce(context.getBean(OrderWriter.class), context.getBean(Events.class));
			assertThat(events).containsExactly("lock held in transaction", "commit", "release");
		});
	}

	@Test
	void defaultOrderWrapsATransactionOrderedLikeSpringBoots() {
		// @EnableTransactionManagement's default order is LOWEST_PRECEDENCE, as Spring
		// Boot configures it
		this.contextRunner.withUserConfiguration(DefaultOrderTransactions.class).run((context) -> {
			List<String> events = writeOnce(context.getBean(OrderWriter.class), context.getBean(Events.class));
			assertThat(events).containsExactly("lock held in transaction", "commit", "release");
		});
	}

	@Test
	void aopOrderAfterTheTransactionReleasesBeforeCommit() {
		this.contextRunner.withUserConfiguration(EarlyTransactions.class)
			.withPropertyValues("distlock.aop.order=20")
			.run((context) -> {
				List<String> events = writeOnce(context.getBean(OrderWriter.class), context.getBean(Events.class));
				assertThat(events).containsExactly("lock held in transaction", "release", "commit");
			});
	}

	@Test
	void aopOrderBeforeTheTransactionReleasesAfterCommit() {
		this.contextRunner.withUserConfiguration(EarlyTransactions.class)
			.withPropertyValues("distlock.aop.order=5")
			.run((context) -> {
				List<String> events = writeOnce(context.getBean(OrderWriter.class), context.getBean(Events.class));
				assertThat(events).containsExactly("lock held in transaction", "commit", "release");
			});
	}

	private static List<String> writeOnce(OrderWriter writer, Events events) {
		writer.createTable();
		events.list.clear();
		writer.write(1);
		assertThat(writer.count()).as("the row was committed").isEqualTo(1);
		return List.copyOf(events.list);
	}

	/**
	 * The order of what happened: commit (transaction synchronization) and release (lock
	 * listener).
	 */
	static class Events implements LockListener {

		final List<String> list = new CopyOnWriteArrayList<>();

		@Override
		public void released(Lease lease, String provider, long heldNanos) {
			this.list.add("release");
		}

	}

	public static class OrderWriter {

		private final JdbcTemplate jdbc;

		private final Events events;

		OrderWriter(JdbcTemplate jdbc, Events events) {
			this.jdbc = jdbc;
			this.events = events;
		}

		public void createTable() {
			this.jdbc.execute("create table if not exists orders (id bigint primary key)");
		}

		public int count() {
			return this.jdbc.queryForObject("select count(*) from orders", Integer.class);
		}

		@DistributedLock(name = "order", key = "#id")
		@Transactional
		public void write(long id) {
			this.jdbc.update("insert into orders (id) values (?)", id);
			if (TransactionSynchronizationManager.isActualTransactionActive() && LockContext.currentLease().isValid()) {
				this.events.list.add("lock held in transaction");
			}
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					OrderWriter.this.events.list.add("commit");
				}
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class DefaultOrderTransactions {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 10)
	static class EarlyTransactions {

	}

}
