package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * With Redis down, a call fails with {@link LockAcquisitionException} within its wait
 * plus one client timeout ({@code distlock.call-timeout}) and 10 %, on the first call and
 * on later ones, whatever Redisson's own timeouts and retries are (left at Redisson's
 * defaults here: 3 s timeout, 4 retries 1.5 s apart). Runs its own {@code redis-server}
 * and kills it; never the shared one.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonOutageTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final Duration WAIT = Duration.ofSeconds(1);

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void withRedisDownACallFailsWithinWaitPlusOneTimeout(LockType type) throws Exception {
		RedisProcesses server = RedisProcesses.start(1);
		this.resources.add(server);
		RedissonClient client = RedissonClients.create(server.address(0));
		this.resources.add(() -> RedissonClients.shutdown(client));
		RedissonLockProvider provider = new RedissonLockProvider(client, TIMEOUT);
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix("outage:"), List.of());
		this.resources.add(template);
		template.acquire(request(type, "warm-up", Duration.ZERO)).release();

		server.kill(0);
		List<Long> took = new ArrayList<>();
		for (int call = 1; call <= 2; call++) {
			took.add(failingCall(template, request(type, "down-" + call, WAIT), WAIT));
		}
		took.add(failingCall(template, request(type, "try-once", Duration.ZERO), Duration.ZERO));
		System.out.printf("%s with Redis down, wait %s / %s / 0, timeout %s: failed after %s ms%n", type,
				WAIT.toMillis(), WAIT.toMillis(), TIMEOUT.toMillis(), took);
	}

	/**
	 * Each Redis call of an acquisition answers within the client timeout, but together
	 * they would not: one deadline of wait + timeout bounds them all (an acquisition that
	 * runs out fails and is cleaned up in the background).
	 */
	@ParameterizedTest
	@EnumSource(LockType.class)
	void aSlowRedisNeverHoldsACallPastWaitPlusOneTimeout(LockType type) throws Exception {
		DelayingProxy proxy = DelayingProxy.start(dev.distlock.test.TestServers.redisUri());
		this.resources.add(proxy);
		RedissonClient client = RedissonClients.create(proxy.address());
		this.resources.add(() -> RedissonClients.shutdown(client));
		RedissonLockProvider provider = new RedissonLockProvider(client, TIMEOUT);
		String prefix = "slow:" + java.util.UUID.randomUUID().toString().substring(0, 8) + ":";
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(prefix), List.of());
		this.resources.add(() -> client.getKeys().deleteByPattern("*" + prefix + "*"));
		this.resources.add(template);
		proxy.delayReplies(TIMEOUT.multipliedBy(7).dividedBy(10));
		long start = System.nanoTime();
		java.util.Optional<dev.distlock.core.Lease> lease;
		try {
			lease = java.util.Optional.of(template.acquire(request(type, "slow", Duration.ZERO)));
		}
		catch (LockAcquisitionException ex) {
			// allowed: the deadline ran out
			lease = java.util.Optional.empty();
		}
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		lease.ifPresent(dev.distlock.core.Lease::release);
		System.out.printf("%s with replies 700 ms late, wait 0, timeout %s: returned after %d ms%n", type,
				TIMEOUT.toMillis(), millis);
		assertThat(millis).as("%s acquisition with slow replies took %d ms", type, millis)
			.isLessThanOrEqualTo(TIMEOUT.toMillis() * 11 / 10);
		proxy.delayReplies(Duration.ZERO);
	}

	private static LockRequest request(LockType type, String key, Duration wait) {
		return LockRequest.builder(key).type(type).lease(Duration.ofSeconds(30)).waitTime(wait).build();
	}

	private static long failingCall(LockTemplate template, LockRequest request, Duration wait) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> template.acquire(request));
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		long bound = wait.plus(TIMEOUT).toMillis() * 11 / 10;
		assertThat(millis)
			.as("%s %s with Redis down failed after %d ms, beyond wait + timeout + 10 %% (%d ms)", request.type(),
					request.key(), millis, bound)
			.isLessThanOrEqualTo(bound);
		return millis;
	}

}
