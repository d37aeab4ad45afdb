package dev.distlock.redis;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code distlock.redis.wait-for-replicas}: a grant counts only once the replica has it,
 * so a failover to the replica keeps the lock; without a replica to acknowledge,
 * acquisitions fail and leave nothing held. Runs its own primary and replica.
 */
@Tag("fault")
class RedisWaitForReplicasTests {

	private Path dir;

	private RedisServerProcess primary;

	private RedisServerProcess replica;

	private LettuceConnectionFactory factory;

	@BeforeEach
	void start() throws Exception {
		this.dir = Files.createTempDirectory("distlock-redis-wait");
		this.primary = RedisServerProcess.start(TestServers.freePort(), this.dir);
		this.replica = RedisServerProcess.start(TestServers.freePort(), this.dir, "--replicaof", "127.0.0.1",
				Integer.toString(this.primary.port()));
		this.primary.awaitReply(Duration.ofSeconds(20), "state=online", "INFO", "replication");
		this.factory = RedisTestConnections.standalone(URI.create("redis://" + this.primary.address()),
				Duration.ofSeconds(5));
	}

	@AfterEach
	void stop() throws Exception {
		this.factory.destroy();
		if (this.replica != null) {
			this.replica.kill();
		}
		this.primary.kill();
		FileSystemUtils.deleteRecursively(this.dir);
	}

	@Test
	void aGrantCountsOnceTheReplicaHasItAndFailsWithoutTheReplica() throws Exception {
		RedisLockProvider provider = new RedisLockProvider(this.factory);
		provider.setWaitForReplicas(1, Duration.ofMillis(300));
		LockTemplate template = new LockTemplate(provider);
		try {
			LockRequest request = LockRequest.builder("replicated").lease(Duration.ofSeconds(30)).build();
			Lease lease = template.acquire(request);
			String holder = RedisLockKeys.of(template.settings().keyPrefix() + "replicated", LockType.MUTEX).holder();
			assertThat(this.replica.cli("GET", holder).trim()).as("the replica has the lock when acquire returns")
				.isNotEmpty()
				.isNotEqualTo("(nil)");
			lease.release();
			this.replica.kill();
			this.replica = null;
			this.primary.awaitReply(Duration.ofSeconds(20), "connected_slaves:0", "INFO", "replication");
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> template.acquire(request))
				.withMessageContaining("reached 0 of 1 replicas");
			StringRedisTemplate redis = new StringRedisTemplate(this.factory);
			await("the unreplicated grant is cleaned up").atMost(Duration.ofSeconds(5))
				.until(() -> !Boolean.TRUE.equals(redis.hasKey(holder)));
		}
		finally {
			template.close();
		}
	}

}
