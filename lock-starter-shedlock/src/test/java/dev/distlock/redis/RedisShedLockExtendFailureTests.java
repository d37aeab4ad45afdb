package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.shedlock.DistlockLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import dev.distlock.test.TestServers;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An extension that fails with a backend error (here a renewal on the Redis at
 * {@link TestServers#redisUri()} that answers with a timeout) leaves the ShedLock lock
 * usable: the task's own exception comes out of ShedLock's executor, and ShedLock's
 * unlock still releases the lease, so another node gets the lock at once rather than
 * after {@code lockAtMostFor}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisShedLockExtendFailureTests {

	private final String prefix = "shedlock-extend:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final AtomicInteger failedRenewals = new AtomicInteger();

	private LettuceConnectionFactory schedulerFactory;

	private LettuceConnectionFactory otherFactory;

	private LockTemplate scheduler;

	private LockTemplate otherNode;

	@BeforeEach
	void startNodes() {
		this.schedulerFactory = RedisTestConnections.standalone(TestServers.redisUri(), Duration.ofSeconds(10));
		this.otherFactory = RedisTestConnections.standalone(TestServers.redisUri(), Duration.ofSeconds(10));
		ForwardingLockProvider timingOut = new ForwardingLockProvider(new RedisLockProvider(this.schedulerFactory)) {

			@Override
			public boolean renew(HeldLock lock, Duration lease) throws Exception {
				RedisShedLockExtendFailureTests.this.failedRenewals.incrementAndGet();
				throw new TimeoutException("Redis did not answer the renewal within its call timeout");
			}

		};
		this.scheduler = template(timingOut);
		this.otherNode = template(new RedisLockProvider(this.otherFactory));
	}

	@AfterEach
	void stopNodes() throws Exception {
		this.scheduler.close();
		this.otherNode.close();
		this.scheduler.defaultProvider().close();
		this.otherNode.defaultProvider().close();
		this.schedulerFactory.destroy();
		this.otherFactory.destroy();
	}

	private LockTemplate template(dev.distlock.core.spi.LockProvider<?> provider) {
		return new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix).withCallTimeout(Duration.ofSeconds(10)), List.of());
	}

	@Test
	void taskExceptionIsNotMaskedAndLeaseIsReleasedWhenExtensionTimesOut() {
		DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(new DistlockLockProvider(this.scheduler));
		LockConfiguration configuration = new LockConfiguration(Instant.now(), "report", Duration.ofMinutes(5),
				Duration.ZERO);
		assertThatExceptionOfType(DistributedLockException.class).as("what the task threw")
			.isThrownBy(() -> executor.executeWithLock(
					(Runnable) () -> LockExtender.extendActiveLock(Duration.ofMinutes(10), Duration.ZERO),
					configuration))
			.withRootCauseInstanceOf(TimeoutException.class);
		assertThat(this.failedRenewals).as("extensions sent").hasValue(1);
		assertFree("report");
	}

	@Test
	void lockWhoseExtensionTimedOutCanStillBeUnlockedOrExtended() {
		DistlockLockProvider provider = new DistlockLockProvider(this.scheduler);
		SimpleLock lock = provider
			.lock(new LockConfiguration(Instant.now(), "cleanup", Duration.ofMinutes(5), Duration.ZERO))
			.orElseThrow();
		assertThatExceptionOfType(DistributedLockException.class).as("the extension")
			.isThrownBy(() -> lock.extend(Duration.ofMinutes(10), Duration.ZERO));
		assertThatExceptionOfType(DistributedLockException.class).as("a second try of the extension")
			.isThrownBy(() -> lock.extend(Duration.ofMinutes(10), Duration.ZERO));
		assertThat(this.failedRenewals).as("extensions sent").hasValue(2);
		lock.unlock();
		assertFree("cleanup");
	}

	private void assertFree(String name) {
		Optional<Lease> probe = this.otherNode
			.tryAcquire(LockRequest.builder(name).waitTime(Duration.ZERO).lease(Duration.ofSeconds(10)).build());
		probe.ifPresent(Lease::release);
		assertThat(probe).as("another node's attempt at '%s' after the unlock", name).isPresent();
	}

}
