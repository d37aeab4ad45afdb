package dev.distlock.fencing;

import java.time.Duration;
import java.util.UUID;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.etcd.EtcdCluster;
import dev.distlock.etcd.EtcdLockProvider;
import dev.distlock.test.ChildJvm;
import dev.distlock.test.TestServers;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GC-pause story on etcd: a holder in a child JVM takes the lock (1 s lease, so an
 * etcd lease of 2 s that nobody keeps alive while it is frozen) and is frozen with
 * SIGSTOP before it writes; the etcd lease expires and the servers delete its entry, a
 * new holder in this JVM takes the lock with a higher token (a later revision) and writes
 * through the fenced JDBC helper; then the old holder is thawed and writes late through
 * the same helper, which refuses it, and the new holder's write stands.
 */
@Tag("fault")
@Timeout(90)
class EtcdPausedHolderFencingTests {

	private final String table = "fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final String lockKey = "fencing-test-lock/" + UUID.randomUUID();

	private final JdbcTemplate jdbc = new JdbcTemplate(FencingTestSupport.postgres());

	private EtcdCluster cluster;

	@BeforeEach
	void createResources() {
		this.cluster = EtcdCluster.start(3);
		this.jdbc
			.execute("CREATE TABLE " + this.table + " (id INT PRIMARY KEY, owner VARCHAR(40), fencing_token BIGINT)");
		this.jdbc.update("INSERT INTO " + this.table + " (id, owner) VALUES (1, 'nobody')");
	}

	@AfterEach
	void dropResources() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		this.cluster.close();
	}

	@Test
	void holderPausedPastItsLeaseIsRefusedAndTheNewHoldersWriteStands() throws Exception {
		TestServers.JdbcServer postgres = TestServers.postgres();
		try (ChildJvm paused = ChildJvm.start("etcd-paused-holder", EtcdFencedWriterProcess.class,
				this.cluster.endpoints(), postgres.url(), postgres.username(), postgres.password(), this.table,
				this.lockKey)) {
			long oldToken = Long.parseLong(paused.awaitLine("ACQUIRED", Duration.ofSeconds(30)));
			paused.pause();

			JdbcFencing jdbcFencing = new JdbcFencing(this.jdbc);
			long newToken;
			try (Client client = this.cluster.client();
					LockTemplate locks = new LockTemplate(EtcdLockProvider.builder(client).build())) {
				newToken = locks.execute(LockRequest.builder(this.lockKey)
					.lease(Duration.ofSeconds(5))
					.waitTime(Duration.ofSeconds(20))
					.build(), () -> {
						assertThat(jdbcFencing.update(this.table).set("owner", "new holder").where("id", 1).execute())
							.as("rows the new holder updated")
							.isEqualTo(1);
						return LockContext.currentLease().fencingToken();
					});
			}
			assertThat(newToken).as("the new holder's token").isGreaterThan(oldToken);

			paused.resume();
			paused.send("WRITE");
			assertThat(paused.awaitLine("JDBC", Duration.ofSeconds(20))).as("the late SQL write")
				.isEqualTo("STALE " + newToken);
			paused.awaitLine("DONE", Duration.ofSeconds(20));
		}
		assertThat(this.jdbc.queryForMap("SELECT owner, fencing_token FROM " + this.table + " WHERE id = 1"))
			.as("the row after both writes")
			.containsEntry("owner", "new holder");
	}

}
