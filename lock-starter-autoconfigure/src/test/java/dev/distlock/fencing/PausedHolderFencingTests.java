package dev.distlock.fencing;

import java.time.Duration;
import java.util.UUID;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.test.ChildJvm;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GC-pause story, for real: a holder in a child JVM takes the lock (Redis backend, 1
 * s lease), is frozen with SIGSTOP before it writes, a new holder in this JVM takes the
 * lock after the lease ran out and writes through the fenced helpers (PostgreSQL row,
 * Redis key), then the old holder is thawed and writes late through the same helpers:
 * both refuse it, and the new holder's writes stand.
 */
@Tag("fault")
@Timeout(60)
class PausedHolderFencingTests {

	private final String table = "fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final String redisKey = "fencing-test:" + UUID.randomUUID();

	private final String lockKey = "fencing-test-lock:" + UUID.randomUUID();

	private final JdbcTemplate jdbc = new JdbcTemplate(FencingTestSupport.postgres());

	private LettuceConnectionFactory redis;

	@BeforeEach
	void createResources() {
		this.jdbc
			.execute("CREATE TABLE " + this.table + " (id INT PRIMARY KEY, owner VARCHAR(40), fencing_token BIGINT)");
		this.jdbc.update("INSERT INTO " + this.table + " (id, owner) VALUES (1, 'nobody')");
		this.redis = FencingTestSupport.redis(TestServers.redisUri());
	}

	@AfterEach
	void dropResources() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		new StringRedisTemplate(this.redis)
			.delete(java.util.List.of(this.redisKey, RedisFencing.tokenKey(this.redisKey, ":fencing-token")));
		this.redis.destroy();
	}

	@Test
	void holderPausedPastItsLeaseIsRefusedAndTheNewHoldersWritesStand() throws Exception {
		TestServers.JdbcServer postgres = TestServers.postgres();
		try (ChildJvm paused = ChildJvm.start("paused-holder", FencedWriterProcess.class,
				TestServers.redisUri().toString(), postgres.url(), postgres.username(), postgres.password(), this.table,
				this.redisKey, this.lockKey)) {
			long oldToken = Long.parseLong(paused.awaitLine("ACQUIRED", Duration.ofSeconds(30)));
			paused.pause();

			StringRedisTemplate redisTemplate = new StringRedisTemplate(this.redis);
			JdbcFencing jdbcFencing = new JdbcFencing(this.jdbc);
			RedisFencing redisFencing = new RedisFencing(redisTemplate, (store, name, ex) -> {
			});
			long newToken;
			try (LockTemplate locks = new LockTemplate(new RedisLockProvider(this.redis))) {
				newToken = locks.execute(LockRequest.builder(this.lockKey)
					.lease(Duration.ofSeconds(5))
					.waitTime(Duration.ofSeconds(10))
					.build(), () -> {
						assertThat(jdbcFencing.update(this.table).set("owner", "new holder").where("id", 1).execute())
							.as("rows the new holder updated")
							.isEqualTo(1);
						redisFencing.set(this.redisKey, "new holder");
						return LockContext.currentLease().fencingToken();
					});
			}
			assertThat(newToken).as("the new holder's token").isGreaterThan(oldToken);

			paused.resume();
			paused.send("WRITE");
			assertThat(paused.awaitLine("JDBC", Duration.ofSeconds(20))).as("the late SQL write")
				.isEqualTo("STALE " + newToken);
			assertThat(paused.awaitLine("REDIS", Duration.ofSeconds(20))).as("the late Redis write")
				.isEqualTo("STALE " + newToken);
			paused.awaitLine("DONE", Duration.ofSeconds(20));
		}
		assertThat(this.jdbc.queryForMap("SELECT owner, fencing_token FROM " + this.table + " WHERE id = 1"))
			.as("the row after both writes")
			.containsEntry("owner", "new holder");
		assertThat(new StringRedisTemplate(this.redis).opsForValue().get(this.redisKey)).as("the Redis key")
			.isEqualTo("new holder");
	}

}
