package dev.distlock.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.autoconfigure.RedisLockAutoConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code redis} backend when the network to Redis goes silent (a partition or a hung
 * server: no reset, no refusal, bytes held both ways, then delivered on heal), in an
 * application configured as a new user would: the auto-configuration, host and port only,
 * no timeouts (Lettuce's command timeout is then 60 s, Jedis' socket timeout 2 s). Calls
 * must end by their own bounds (wait + {@code distlock.call-timeout} for an acquisition,
 * the call timeout for a release), the application must lock again after the heal, and
 * nothing asked for during the silence may stay held.
 */
@Tag("fault")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisSilentNetworkTests {

	private static final Duration WAIT = Duration.ofSeconds(2);

	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

	/** Scheduling on a 2-core machine shared with other builds. */
	private static final Duration SLACK = Duration.ofMillis(500);

	private static final Duration WORK_AFTER_CUT = Duration.ofMillis(500);

	private Path dir;

	private RedisNode node;

	@BeforeAll
	void startServer() throws Exception {
		this.dir = Files.createTempDirectory("distlock-silent-redis");
		this.node = RedisNode.start(this.dir);
	}

	@AfterAll
	void stopServer() throws Exception {
		this.node.close();
		FileSystemUtils.deleteRecursively(this.dir);
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void callsEndInTimeWhileTheNetworkIsSilentAndLockingResumesAfterItHeals(String client) throws Exception {
		String prefix = "silent:" + client + ":" + UUID.randomUUID().toString().substring(0, 8) + ":";
		try (TcpProxy proxy = TcpProxy.start(this.node.port())) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
						RedisLockAutoConfiguration.class, DistlockAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port(),
						"spring.data.redis.client-type=" + client, "distlock.key-prefix=" + prefix)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					silence(context.getBean(LockTemplate.class), proxy, client, prefix);
				});
		}
	}

	private void silence(LockTemplate template, TcpProxy proxy, String client, String prefix) throws Exception {
		// connected and working before the silence
		assertThat(template.execute(request("warm-up"), () -> "ran")).isEqualTo("ran");
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch cut = new CountDownLatch(1);
		AtomicLong workEnded = new AtomicLong();
		CompletableFuture<Long> holder = CompletableFuture.supplyAsync(() -> {
			template.execute(request("shared"), () -> {
				holding.countDown();
				cut.await();
				Thread.sleep(WORK_AFTER_CUT.toMillis());
				workEnded.set(System.nanoTime());
				return null;
			});
			return System.nanoTime();
		});
		assertThat(holding.await(10, TimeUnit.SECONDS)).as("holder got the lock").isTrue();
		long waiterStart = System.nanoTime();
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> template.execute(request("shared"), () -> "ran"));
			return System.nanoTime();
		});
		Thread.sleep(100);
		proxy.cut();
		cut.countDown();
		List<String> asked = new ArrayList<>(List.of("shared"));
		long waiterEnd = waiter.get(30, TimeUnit.SECONDS);
		long holderEnd = holder.get(30, TimeUnit.SECONDS);
		Duration waited = Duration.ofNanos(waiterEnd - waiterStart);
		Duration release = Duration.ofNanos(holderEnd - workEnded.get());
		System.out.printf("%s silent: waiter ended after %d ms, holder's call returned %d ms after its work%n", client,
				waited.toMillis(), release.toMillis());
		assertThat(waited).as("waiter (wait %s) ended within wait + call timeout", WAIT)
			.isLessThanOrEqualTo(WAIT.plus(CALL_TIMEOUT).plus(SLACK));
		assertThat(release).as("holder's call returned within the call timeout after its work ended")
			.isLessThanOrEqualTo(CALL_TIMEOUT.plus(SLACK));
		for (int i = 0; i < 3; i++) {
			String key = "fresh-" + i;
			asked.add(key);
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> template.execute(request(key), () -> "ran"));
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			System.out.printf("%s silent: call on a fresh key ended after %d ms%n", client, took.toMillis());
			assertThat(took).as("call on a fresh key (wait %s) ended within wait + call timeout", WAIT)
				.isLessThanOrEqualTo(WAIT.plus(CALL_TIMEOUT).plus(SLACK));
		}
		proxy.heal();
		long healed = System.nanoTime();
		Duration recovery = null;
		while (recovery == null && System.nanoTime() - healed < TimeUnit.SECONDS.toNanos(10)) {
			try {
				template.execute(request("after-heal"), () -> "ran");
				recovery = Duration.ofNanos(System.nanoTime() - healed);
			}
			catch (LockAcquisitionException ex) {
				Thread.sleep(50);
			}
		}
		System.out.printf("%s silent: locked again %s ms after the heal%n", client,
				(recovery != null) ? recovery.toMillis() : "never");
		assertThat(recovery).as("locked again within 5 s of the heal")
			.isNotNull()
			.isLessThanOrEqualTo(Duration.ofSeconds(5));
		assertNothingStaysHeld(prefix, asked, client);
	}

	/**
	 * Checked on the real server, not through the proxy: every late grant has been
	 * released with its own token.
	 */
	private void assertNothingStaysHeld(String prefix, List<String> asked, String client) throws Exception {
		LettuceConnectionFactory direct = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", this.node.port()));
		direct.afterPropertiesSet();
		direct.start();
		try {
			StringRedisTemplate redis = new StringRedisTemplate(direct);
			long healedCheck = System.nanoTime();
			Set<String> held = held(redis, prefix, asked);
			while (!held.isEmpty() && System.nanoTime() - healedCheck < TimeUnit.SECONDS.toNanos(5)) {
				Thread.sleep(50);
				held = held(redis, prefix, asked);
			}
			System.out.printf("%s silent: keys asked for during the silence free %d ms after the check began%n", client,
					TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healedCheck));
			assertThat(held).as("locks asked for during the silence still held on the server").isEmpty();
		}
		finally {
			direct.destroy();
		}
	}

	private static Set<String> held(StringRedisTemplate redis, String prefix, List<String> asked) {
		Set<String> held = new TreeSet<>();
		for (String key : asked) {
			String holder = "{" + prefix + key + "}:mutex";
			if (Boolean.TRUE.equals(redis.hasKey(holder))) {
				held.add(holder + " (" + redis.getExpire(holder, TimeUnit.MILLISECONDS) + " ms left)");
			}
		}
		return held;
	}

	private static LockRequest request(String key) {
		return LockRequest.builder(key).waitTime(WAIT).build();
	}

}
