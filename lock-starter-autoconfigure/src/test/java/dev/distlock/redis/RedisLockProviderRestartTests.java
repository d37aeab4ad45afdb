package dev.distlock.redis;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A Redis server that dies while locks are held and waiters wait, then comes back empty
 * (no persistence): leases are reported lost, waiters and new acquisitions fail with
 * {@link LockAcquisitionException} within their wait plus the command timeout instead of
 * hanging, and after the restart locking works again with fencing tokens still above the
 * old ones.
 */
@Tag("fault")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisLockProviderRestartTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration WATCHDOG_LEASE = Duration.ofMillis(1500);

	/** Time for a loaded machine to schedule threads, on top of every bound below. */
	private static final Duration SLACK = Duration.ofSeconds(3);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private Path dir;

	private RedisServerProcess server;

	private LettuceConnectionFactory connectionFactory;

	private final List<LockTemplate> templates = new java.util.ArrayList<>();

	private final List<RedisLockProvider> providers = new java.util.ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		this.executor.shutdownNow();
		this.templates.forEach(LockTemplate::close);
		this.providers.forEach(RedisLockProvider::close);
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		if (this.server != null) {
			this.server.kill();
		}
		if (this.dir != null) {
			FileSystemUtils.deleteRecursively(this.dir);
		}
	}

	private LockTemplate process() {
		RedisLockProvider provider = new RedisLockProvider(this.connectionFactory);
		this.providers.add(provider);
		LockSettings settings = LockSettings.defaults()
			.withWatchdog(WATCHDOG_LEASE, WATCHDOG_LEASE.dividedBy(3))
			.withBackoff(Duration.ofMillis(5), Duration.ofMillis(100), Duration.ofMillis(300));
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(), settings, List.of());
		this.templates.add(template);
		return template;
	}

	@Test
	void killedServerLosesLeasesFailsWaitersAndLocksAgainAfterRestart() throws Exception {
		this.dir = Files.createTempDirectory("distlock-redis-restart");
		int port = TestServers.freePort();
		this.server = RedisServerProcess.start(port, this.dir);
		this.connectionFactory = RedisTestConnections.standalone(URI.create("redis://127.0.0.1:" + port),
				COMMAND_TIMEOUT);
		LockTemplate holder = process();
		LockTemplate waiter = process();

		Lease held = holder.acquire(LockRequest.of("orders"));
		CountDownLatch lost = new CountDownLatch(1);
		held.onLost(lost::countDown);
		Duration waiterWait = Duration.ofSeconds(6);
		long waitStart = System.nanoTime();
		Future<Lease> waiting = this.executor
			.submit(() -> waiter.acquire(LockRequest.builder("orders").waitTime(waiterWait).build()));
		Thread.sleep(500);
		assertThat(waiting.isDone()).as("the waiter waits while the lock is held").isFalse();

		this.server.kill();
		long killed = System.nanoTime();

		assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
			.isThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockAcquisitionException.class);
		assertThat(since(waitStart)).as("the waiting acquisition ends within its wait and the command timeouts")
			.isLessThan(waiterWait.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(SLACK));

		Duration newWait = Duration.ofSeconds(2);
		long newStart = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> waiter.acquire(LockRequest.builder("invoices").waitTime(newWait).build()));
		assertThat(since(newStart)).as("an acquisition while the server is down ends within its wait")
			.isLessThan(newWait.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(SLACK));

		assertThat(lost.await(WATCHDOG_LEASE.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(SLACK).toMillis(),
				TimeUnit.MILLISECONDS))
			.as("the holder learns its lease is lost within about the watchdog lease")
			.isTrue();
		assertThat(since(killed)).isLessThan(WATCHDOG_LEASE.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(SLACK));
		assertThat(held.isValid()).isFalse();
		held.release(); // the release fails against the dead server; it must neither
						// throw nor hang

		this.server = RedisServerProcess.start(port, this.dir);

		Lease again = acquireWithin(waiter, "orders", Duration.ofSeconds(20));
		assertThat(again.fencingToken()).as("fencing tokens keep increasing although the counter was lost")
			.isGreaterThan(held.fencingToken());
		Future<Lease> next = this.executor
			.submit(() -> holder.acquire(LockRequest.builder("orders").waitTime(Duration.ofSeconds(20)).build()));
		Thread.sleep(300);
		assertThat(next.isDone()).as("a waiter waits again after the restart").isFalse();
		again.release();
		Lease handedOver = next.get(10, TimeUnit.SECONDS);
		assertThat(handedOver.fencingToken()).isGreaterThan(again.fencingToken());
		handedOver.release();
	}

	private static Lease acquireWithin(LockTemplate template, String key, Duration timeout)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				return template.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(2)).build());
			}
			catch (LockAcquisitionException ex) {
				if (System.nanoTime() > deadline) {
					throw new AssertionError("No lock within " + timeout + " of the restart", ex);
				}
				Thread.sleep(200);
			}
		}
	}

	private static Duration since(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

}
