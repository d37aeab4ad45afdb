package dev.distlock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import dev.distlock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code zookeeper} backend, configured as a new user does (the connect string,
 * nothing else: a 30 s session, a 15 s connection timeout, distlock's 1 s call timeout),
 * while the network to the server goes silent: the proxy holds the bytes in both
 * directions without closing anything, as a partition or a hung server does. Every call
 * still ends within its wait plus the call timeout, a release within the call timeout,
 * and after the heal the application locks again and nothing asked for during the silence
 * stays held.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ZooKeeperSilentNetworkTests {

	private static final Duration WAIT = Duration.ofSeconds(2);

	/**
	 * The wait plus distlock's call timeout (1 s), with room for scheduling on a shared
	 * 2-core machine.
	 */
	private static final long ACQUIRE_BOUND_MILLIS = 3_300;

	/** The call timeout (1 s), with the same room. */
	private static final long RELEASE_BOUND_MILLIS = 1_300;

	private final String prefix = "silent-" + UUID.randomUUID().toString().substring(0, 8) + "-";

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private TestingServer server;

	private TcpProxy proxy;

	private CuratorFramework admin;

	@BeforeAll
	void start() throws Exception {
		this.server = ZooKeeperTestSupport.server();
		this.proxy = TcpProxy.start(this.server.getPort());
		this.admin = ZooKeeperTestSupport.client(this.server.getConnectString());
	}

	@AfterAll
	void stop() throws Exception {
		this.executor.shutdownNow();
		this.admin.close();
		this.proxy.close();
		this.server.close();
	}

	@Test
	void everyCallEndsInTimeWhileTheNetworkIsSilentAndNothingStaysHeldAfterTheHeal() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ZooKeeperLockAutoConfiguration.class, DistlockAutoConfiguration.class))
			.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:" + this.proxy.port())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				silence(context.getBean(LockTemplate.class));
			});
	}

	private void silence(LockTemplate template) throws Exception {
		String held = this.prefix + "held";
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch workEnds = new CountDownLatch(1);
		Future<Long> holder = this.executor.submit(() -> {
			template.execute(LockRequest.builder(held).waitTime(WAIT).build(), () -> {
				holding.countDown();
				workEnds.await();
				return null;
			});
			return System.nanoTime();
		});
		assertThat(holding.await(10, TimeUnit.SECONDS)).as("the holder got the lock").isTrue();
		Future<Long> waiter = this.executor.submit(() -> failureMillis(template, held));
		// threads of one process queue locally: let the waiter take its place behind the
		// holder before the silence
		Thread.sleep(300);
		this.proxy.cut();
		long cut = System.nanoTime();
		List<String> askedDuringSilence = new ArrayList<>(List.of(held));
		List<Future<Long>> fresh = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			String key = this.prefix + "fresh-" + i;
			askedDuringSilence.add(key);
			fresh.add(this.executor.submit(() -> failureMillis(template, key)));
		}
		Thread.sleep(500);
		long workEnded = System.nanoTime();
		workEnds.countDown();
		long holderReturned = holder.get(10, TimeUnit.SECONDS);
		long releaseMillis = TimeUnit.NANOSECONDS.toMillis(holderReturned - workEnded);
		long waiterMillis = waiter.get(10, TimeUnit.SECONDS);
		List<Long> freshMillis = new ArrayList<>();
		for (Future<Long> call : fresh) {
			freshMillis.add(call.get(10, TimeUnit.SECONDS));
		}
		long silentMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
		this.proxy.heal();
		long healed = System.nanoTime();
		template.acquire(LockRequest.builder(this.prefix + "after").waitTime(Duration.ofSeconds(20)).build()).release();
		long relockMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed);
		awaitLockNodes(0);
		long cleanMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed);
		System.out.printf(
				"zookeeper silent network: waiter %d ms, release %d ms after the work, fresh calls %s ms, "
						+ "silence %d ms; after the heal: locked again in %d ms, no node left after %d ms%n",
				waiterMillis, releaseMillis, freshMillis, silentMillis, relockMillis, cleanMillis);
		assertThat(waiterMillis).as("ms until the queued waiter (wait 2 s) gave up").isLessThan(ACQUIRE_BOUND_MILLIS);
		assertThat(releaseMillis).as("ms the holder's call took after its work ended").isLessThan(RELEASE_BOUND_MILLIS);
		assertThat(freshMillis).as("ms until each call on a fresh key (wait 2 s) failed")
			.allMatch((millis) -> millis < ACQUIRE_BOUND_MILLIS);
		for (String key : askedDuringSilence) {
			assertThat(template.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()))
				.as("key %s asked for during the silence is free after the heal", key)
				.hasValueSatisfying((lease) -> lease.release());
		}
	}

	private static long failureMillis(LockTemplate template, String key) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> template.acquire(LockRequest.builder(key).waitTime(WAIT).build()));
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
	}

	private void awaitLockNodes(int count) throws InterruptedException {
		ZooKeeperTestSupport.awaitLockNodes(this.admin, "/distlock", count);
	}

}
