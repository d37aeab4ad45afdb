package dev.distlock.fault;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.redisson.autoconfigure.RedissonLockAutoConfiguration;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code redisson} backend when the network to Redis goes silent (a {@link TcpProxy}
 * that holds bytes in both directions, keeping the sockets open, and delivers them on
 * heal), in an application built as a new user builds it: the auto-configuration, a
 * {@code RedissonClient} with only its address set (Redisson's own timeouts and retries),
 * no distlock timeout. A waiter gives up within its wait plus
 * {@code distlock.call-timeout} (1 s), a holder's call returns within that timeout after
 * its work ended, calls on fresh keys end within their wait plus the timeout; after the
 * heal the application locks again and nothing asked for during the silence stays held,
 * since grants that arrive late are released with their own owner id. The shared Redis
 * behind the proxy is never stopped.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonSilentNetworkTests {

	private static final Duration WAIT = Duration.ofSeconds(2);

	/** {@code distlock.call-timeout}'s default: what bounds a call beyond its wait. */
	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

	/** Scheduling on a busy machine: threads wake up a little after their deadline. */
	private static final Duration SLACK = Duration.ofMillis(250);

	/** How long after the heal a late grant may take to be found and released. */
	private static final Duration SETTLE = Duration.ofSeconds(3);

	private final String prefix = "silent:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedissonLockAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.key-prefix=" + this.prefix);

	@Test
	void callsEndWithinTheirWaitPlusOneSecondAndNothingAskedForDuringTheSilenceStaysHeld() throws Exception {
		URI redis = TestServers.redisUri();
		try (TcpProxy proxy = TcpProxy.start(redis.getPort())) {
			this.contextRunner
				.withBean(RedissonClient.class, () -> userClient("redis://127.0.0.1:" + proxy.port()),
						(definition) -> definition.setDestroyMethodName("shutdown"))
				.run((context) -> silence(context.getBean(LockTemplate.class), proxy, "redisson"));
		}
		finally {
			deleteKeys();
		}
	}

	/**
	 * The same on {@code redisson-quorum} with one node, configured with its address
	 * only: each round ends within the node timeout, so calls fail sooner than their wait
	 * (the quorum is unavailable).
	 */
	@Test
	void quorumCallsEndWithinTheirWaitPlusOneSecondAndNothingAskedForDuringTheSilenceStaysHeld() throws Exception {
		URI redis = TestServers.redisUri();
		try (TcpProxy proxy = TcpProxy.start(redis.getPort())) {
			this.contextRunner.withPropertyValues("distlock.redisson.nodes=redis://127.0.0.1:" + proxy.port())
				.run((context) -> silence(context.getBean(LockTemplate.class), proxy, "redisson-quorum"));
		}
		finally {
			deleteKeys();
		}
	}

	private void deleteKeys() {
		RedissonClient admin = userClient(TestServers.redisUri().toString());
		try {
			admin.getKeys().deleteByPattern("*" + this.prefix + "*");
		}
		finally {
			admin.shutdown();
		}
	}

	private void silence(LockTemplate template, TcpProxy proxy, String backend) throws Exception {
		warmUp(template);
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch endWork = new CountDownLatch(1);
		long[] workEnded = new long[1];
		CompletableFuture<Long> holder = CompletableFuture.supplyAsync(() -> {
			template.execute(LockRequest.builder("held").waitTime(WAIT).build(), () -> {
				holding.countDown();
				endWork.await();
				workEnded[0] = System.nanoTime();
				return null;
			});
			return System.nanoTime();
		});
		assertThat(holding.await(10, TimeUnit.SECONDS)).as("the holder got the lock").isTrue();
		long waiterStart = System.nanoTime();
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> template.execute(LockRequest.builder("held").waitTime(WAIT).build(), () -> null));
			return System.nanoTime();
		});
		Thread.sleep(200);
		proxy.cut();
		long waiterTook = millis(waiter.get(30, TimeUnit.SECONDS) - waiterStart);

		endWork.countDown();
		long holderReturned = holder.get(30, TimeUnit.SECONDS);
		long releaseTook = millis(holderReturned - workEnded[0]);

		List<String> fresh = List.of("fresh-1", "fresh-2", "fresh-3");
		List<Long> freshTook = new ArrayList<>();
		for (String key : fresh) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> template.execute(LockRequest.builder(key).waitTime(WAIT).build(), () -> null));
			freshTook.add(millis(System.nanoTime() - start));
		}

		proxy.heal();
		long healed = System.nanoTime();
		assertThat(template.execute(LockRequest.builder("after-heal").waitTime(Duration.ofSeconds(10)).build(),
				() -> "locked"))
			.isEqualTo("locked");
		long relockTook = millis(System.nanoTime() - healed);
		List<String> askedInTheSilence = new ArrayList<>(fresh);
		askedInTheSilence.add("held");
		long freeAfter = awaitFree(userClient(TestServers.redisUri().toString()), askedInTheSilence, healed);

		System.out.printf(
				"%s, silent network, defaults only: waiter gave up after %d ms, holder's call returned %d ms "
						+ "after its work, fresh keys failed after %s ms, locked again %d ms after the heal, "
						+ "every key asked for in the silence free %d ms after the heal%n",
				backend, waiterTook, releaseTook, freshTook, relockTook, freeAfter);
		long bound = WAIT.plus(CALL_TIMEOUT).plus(SLACK).toMillis();
		assertThat(waiterTook).as("the waiter (wait %s) ended after %d ms", WAIT, waiterTook)
			.isLessThanOrEqualTo(bound);
		assertThat(releaseTook).as("the holder's call returned %d ms after its work ended", releaseTook)
			.isLessThanOrEqualTo(CALL_TIMEOUT.plus(SLACK).toMillis());
		assertThat(freshTook).as("calls on fresh keys with wait %s", WAIT)
			.allSatisfy((took) -> assertThat(took).isLessThanOrEqualTo(bound));
		assertThat(freeAfter).as("keys asked for during the silence were still held %d ms after the heal", freeAfter)
			.isLessThanOrEqualTo(SETTLE.toMillis());
	}

	/**
	 * Polls Redis directly (not through the proxy) until none of the keys is locked, at
	 * most {@link #SETTLE} and a little more, so that a key still held past it shows how
	 * long.
	 * @return milliseconds from the heal until every key was free, or past the settle
	 * time if one never was
	 */
	private long awaitFree(RedissonClient admin, List<String> keys, long healed) throws InterruptedException {
		try {
			long giveUp = healed + SETTLE.multipliedBy(2).toNanos();
			while (true) {
				List<String> held = keys.stream().filter((key) -> admin.getKeys().countExists(mutex(key)) > 0).toList();
				long now = System.nanoTime();
				if (held.isEmpty() || now - giveUp > 0) {
					if (!held.isEmpty()) {
						held.forEach((key) -> System.out
							.println("still held " + millis(now - healed) + " ms after the heal: " + key + " by "
									+ admin.getMap(mutex(key), StringCodec.INSTANCE).readAllMap()));
					}
					return millis(now - healed);
				}
				Thread.sleep(50);
			}
		}
		finally {
			admin.shutdown();
		}
	}

	/**
	 * Connects before the silence: a node client connects lazily, and its first call
	 * (connection, script load) may take longer than the quorum's node timeout on a busy
	 * machine.
	 */
	private static void warmUp(LockTemplate template) throws InterruptedException {
		for (int tries = 1;; tries++) {
			try {
				template.execute("warm-up", () -> null);
				return;
			}
			catch (LockAcquisitionException ex) {
				if (tries == 20) {
					throw ex;
				}
				Thread.sleep(100);
			}
		}
	}

	private String mutex(String key) {
		return "{" + this.prefix + key + "}:redisson:mutex";
	}

	/** What a new user writes: the address, Redisson's defaults for everything else. */
	private static RedissonClient userClient(String address) {
		URI uri = URI.create(address);
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + uri.getHost() + ":" + uri.getPort());
		return Redisson.create(config);
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

}
