package dev.distlock.fencing;

import java.util.UUID;

import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.local.LocalLockProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Fenced SQL updates on PostgreSQL: tokens that do not go back are applied and recorded,
 * a lower one is refused, counted, and changes nothing; the token comes from the current
 * lease inside a locked callback.
 */
class JdbcFencingTests {

	private final String table = "fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final JdbcTemplate jdbc = new JdbcTemplate(FencingTestSupport.postgres());

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final JdbcFencing fencing = new JdbcFencing(JdbcClient.create(this.jdbc),
			new MetricsFencingListener(this.meters));

	@BeforeEach
	void createTable() {
		this.jdbc.execute("CREATE TABLE " + this.table
				+ " (id INT PRIMARY KEY, balance INT, fencing_token BIGINT, fence BIGINT)");
		this.jdbc.update("INSERT INTO " + this.table + " (id, balance) VALUES (1, 0), (2, 0)");
	}

	@AfterEach
	void dropTable() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
	}

	@Test
	void updateWithGreaterOrEqualTokenAppliesAndRecordsIt() {
		assertThat(this.fencing.update(this.table).set("balance", 10).where("id", 1).execute(5L)).isEqualTo(1);
		assertThat(this.fencing.update(this.table).set("balance", 20).where("id", 1).execute(5L)).isEqualTo(1);
		assertThat(this.fencing.update(this.table).set("balance", 30).where("id", 1).execute(7L)).isEqualTo(1);
		assertThat(row(1)).isEqualTo("30/7");
		assertThat(row(2)).as("the other row").isEqualTo("0/null");
	}

	@Test
	void updateWithLowerTokenIsRefusedCountedAndChangesNothing() {
		this.fencing.update(this.table).set("balance", 10).where("id", 1).execute(8L);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.update(this.table).set("balance", 99).where("id", 1).execute(7L))
			.withMessageContaining("Stale fencing token 7")
			.withMessageContaining("recorded token 8")
			.satisfies((ex) -> {
				assertThat(ex.getToken()).isEqualTo(7);
				assertThat(ex.getRecordedToken()).isEqualTo(8);
			});
		assertThat(row(1)).isEqualTo("10/8");
		assertThat(this.meters.get(MetricsFencingListener.REJECTED)
			.tags("store", "jdbc", "name", "none")
			.counter()
			.count()).isEqualTo(1.0);
	}

	@Test
	void updateOfMissingRowReturnsZero() {
		assertThat(this.fencing.update(this.table).set("balance", 10).where("id", 3).execute(1L)).isZero();
	}

	@Test
	void tokenComesFromTheCurrentLeaseAndCanUseAnotherColumn() {
		try (LockTemplate locks = new LockTemplate(new LocalLockProvider())) {
			long token = locks.execute(LockRequest.builder("account-1").name("accounts").build(), () -> {
				this.fencing.update(this.table).set("balance", 1).where("id", 1).tokenColumn("fence").execute();
				return dev.distlock.core.LockContext.currentLease().fencingToken();
			});
			assertThat(this.jdbc.queryForObject("SELECT fence FROM " + this.table + " WHERE id = 1", Long.class))
				.isEqualTo(token);
			this.jdbc.update("UPDATE " + this.table + " SET fence = ? WHERE id = 1", token + 100);
			locks.run(LockRequest.builder("account-1").name("accounts").build(),
					() -> assertThatExceptionOfType(StaleFencingTokenException.class)
						.isThrownBy(() -> this.fencing.update(this.table)
							.set("balance", 2)
							.where("id", 1)
							.tokenColumn("fence")
							.execute()));
			assertThat(this.meters.get(MetricsFencingListener.REJECTED).tags("name", "accounts").counter().count())
				.isEqualTo(1.0);
		}
	}

	@Test
	void badInputFailsWithAClearMessage() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.fencing.update("account; DROP TABLE x"))
			.withMessageContaining("not a plain SQL identifier");
		assertThatIllegalArgumentException().isThrownBy(() -> this.fencing.update(this.table).set("balance = 1 --", 1))
			.withMessageContaining("column name");
		assertThatIllegalArgumentException().isThrownBy(() -> this.fencing.update(this.table).where("id", null))
			.withMessageContaining("null value");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.fencing.update(this.table).set("balance", 1).execute(1L))
			.withMessageContaining("where(..)");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.fencing.update(this.table).set("fencing_token", 1).where("id", 1).execute(1L))
			.withMessageContaining("sets the token column");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.fencing.update(this.table).set("balance", 1).where("id", 1).execute())
			.withMessageContaining("needs a fencing token");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.fencing.update(this.table).set("balance", 1).where("id", 1).execute(-1L))
			.withMessageContaining("must not be negative");
	}

	private String row(int id) {
		return this.jdbc.queryForObject("SELECT balance || '/' || COALESCE(CAST(fencing_token AS VARCHAR), 'null') "
				+ "FROM " + this.table + " WHERE id = ?", String.class, id);
	}

}
