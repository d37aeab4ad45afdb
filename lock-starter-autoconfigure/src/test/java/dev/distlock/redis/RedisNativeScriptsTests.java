package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.test.TestServers;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The redis backend on Lettuce's native connection: which commands a lock costs, releases
 * that publish only while somebody waits, waiter registrations that never outlive their
 * wait, the one-command fence, {@code NOSCRIPT} recovery and the asynchronous release.
 */
class RedisNativeScriptsTests {

	private final List<String> commands = Collections.synchronizedList(new ArrayList<>());

	private LettuceConnectionFactory factory;

	private RedisLockProvider provider;

	private StringRedisTemplate redis;

	private final String prefix = "native:" + UUID.randomUUID() + ":";

	@BeforeEach
	void connect() {
		this.factory = RedisTestConnections.standalone(TestServers.redisUri(), Duration.ofSeconds(5));
		this.factory.getRequiredNativeClient().addListener(new CommandListener() {

			@Override
			public void commandStarted(CommandStartedEvent event) {
				RedisNativeScriptsTests.this.commands.add(event.getCommand().getType().toString());
			}

			@Override
			public void commandSucceeded(CommandSucceededEvent event) {
			}

			@Override
			public void commandFailed(CommandFailedEvent event) {
			}

		});
		this.provider = new RedisLockProvider(this.factory);
		this.redis = new StringRedisTemplate(this.factory);
	}

	@AfterEach
	void close() {
		this.provider.close();
		Set<String> keys = this.redis.keys("{" + this.prefix + "*");
		if (keys != null && !keys.isEmpty()) {
			this.redis.delete(keys);
		}
		this.factory.destroy();
	}

	@Test
	void lockingRunsOnTheNativeConnectionOneEvalshaPerCall() {
		LockAttempt attempt = attempt("calls", LockType.MUTEX);
		this.provider.release(granted(this.provider.tryAcquire(attempt))); // loads the
																			// scripts
		this.commands.clear();
		RedisHeldLock held = granted(this.provider.tryAcquire(attempt("calls", LockType.MUTEX)));
		assertThat(this.commands).as("commands of an uncontended acquire").containsExactly("EVALSHA");
		this.commands.clear();
		this.provider.release(held);
		assertThat(this.commands).as("commands of a release").containsExactly("EVALSHA");
	}

	@Test
	void uncontendedReleasePublishesNothingAndAReleaseWithAWaiterPublishesOnce() throws Exception {
		LockAttempt first = attempt("publish", LockType.MUTEX);
		String channel = RedisLockKeys.of(first.key(), LockType.MUTEX).channel();
		BlockingQueue<String> messages = new LinkedBlockingQueue<>();
		RedisMessageListenerContainer listener = new RedisMessageListenerContainer();
		listener.setConnectionFactory(this.factory);
		listener.addMessageListener((message, pattern) -> messages.add(new String(message.getBody())),
				ChannelTopic.of(channel));
		listener.afterPropertiesSet();
		listener.start();
		try {
			await().until(() -> subscribers(channel) == 1);
			for (int i = 0; i < 20; i++) {
				this.provider.release(granted(this.provider.tryAcquire(attempt("publish", LockType.MUTEX))));
			}
			RedisHeldLock held = granted(this.provider.tryAcquire(first));
			assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("messages of 20 uncontended releases").isNull();
			LockAttempt waiter = attempt("publish", LockType.MUTEX);
			assertThat(this.provider.tryAcquire(waiter).isAcquired()).isFalse();
			try (ReleaseSubscription subscription = this.provider.subscribe(waiter, Duration.ofSeconds(5), () -> {
			})) {
				assertThat(subscription.isActive()).isTrue();
				this.provider.release(held);
				assertThat(messages.poll(5, TimeUnit.SECONDS)).as("message of a release with a waiter")
					.isEqualTo("released");
			}
			String wakeup = RedisLockKeys.of(first.key(), LockType.MUTEX).channel();
			await("the waiter left the wake-up set").until(() -> !Boolean.TRUE.equals(this.redis.hasKey(wakeup)));
			this.provider.release(granted(this.provider.tryAcquire(attempt("publish", LockType.MUTEX))));
			assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("message after the waiter left").isNull();
		}
		finally {
			listener.destroy();
		}
	}

	@Test
	void aWaiterThatNeverLeavesIsForgottenWhenItsWaitIsOver() {
		LockAttempt waiter = attempt("crashed-waiter", LockType.SEMAPHORE);
		String wakeup = RedisLockKeys.of(waiter.key(), LockType.SEMAPHORE).channel();
		this.provider.subscribe(waiter, Duration.ofMillis(300), () -> {
		}); // never closed: the waiter "crashed"
		Long ttl = this.redis.getExpire(wakeup, TimeUnit.MILLISECONDS);
		assertThat(ttl).as("expiry of the wake-up set (ms)").isPositive().isLessThanOrEqualTo(1300);
		await().atMost(Duration.ofSeconds(3)).until(() -> !Boolean.TRUE.equals(this.redis.hasKey(wakeup)));
	}

	@Test
	void fencingTokensRiseOnOneKeyAndTheCounterKeepsItsRetention() {
		this.provider.setFenceRetention(Duration.ofMinutes(2));
		long last = 0;
		for (int i = 0; i < 50; i++) {
			RedisHeldLock held = granted(this.provider.tryAcquire(attempt("fence", LockType.READ)));
			assertThat(held.fencingToken()).isGreaterThan(last);
			last = held.fencingToken();
			// READ holds overlap: grants within one microsecond must still get distinct,
			// rising tokens
		}
		String fence = RedisLockKeys.of(this.prefix + "fence", LockType.READ).fence();
		assertThat(this.redis.opsForValue().get(fence)).isEqualTo(Long.toString(last));
		assertThat(this.redis.getExpire(fence, TimeUnit.SECONDS)).isBetween(100L, 120L);
	}

	/**
	 * The script compares the counter with the clock floor as decimal strings: a counter
	 * ahead of the clock (a clock that stepped back) goes on from the counter, and one
	 * behind it, however much shorter, gives way to the floor.
	 */
	@Test
	void aCounterAheadOfTheClockGoesOnAndOneBehindItGivesWayToTheClock() {
		String fence = RedisLockKeys.of(this.prefix + "ahead", LockType.READ).fence();
		this.redis.opsForValue().set(fence, "8000000000000000");
		RedisHeldLock first = granted(this.provider.tryAcquire(attempt("ahead", LockType.READ)));
		RedisHeldLock second = granted(this.provider.tryAcquire(attempt("ahead", LockType.READ)));
		assertThat(first.fencingToken()).isEqualTo(8000000000000001L);
		assertThat(second.fencingToken()).isEqualTo(8000000000000002L);

		String behind = RedisLockKeys.of(this.prefix + "behind", LockType.MUTEX).fence();
		this.redis.opsForValue().set(behind, "123");
		long floor = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) - TimeUnit.MINUTES.toMicros(10);
		RedisHeldLock held = granted(this.provider.tryAcquire(attempt("behind", LockType.MUTEX)));
		assertThat(held.fencingToken()).as("the server clock in microseconds").isGreaterThan(floor);
		assertThat(this.redis.opsForValue().get(behind)).isEqualTo(Long.toString(held.fencingToken()));
	}

	@Test
	void scriptsFlushedFromTheServerAreSentAgain() {
		this.provider.release(granted(this.provider.tryAcquire(attempt("flush", LockType.MUTEX))));
		this.redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		RedisHeldLock held = granted(this.provider.tryAcquire(attempt("flush", LockType.MUTEX)));
		this.provider.release(held);
		assertThat(this.provider.tryAcquire(attempt("flush", LockType.MUTEX)).isAcquired()).isTrue();
	}

	@Test
	void asyncReleaseIsOrderedBeforeTheNextAcquireOnTheConnection() {
		this.provider.setReleaseMode(RedisReleaseMode.ASYNC);
		for (int i = 0; i < 200; i++) {
			this.provider.release(granted(this.provider.tryAcquire(attempt("async", LockType.MUTEX))));
		}
		assertThat(this.provider.failedReleases()).isZero();
	}

	@Test
	void asyncReleaseThatFailsIsCountedAndTheLeaseStillBoundsTheLock() {
		this.provider.setReleaseMode(RedisReleaseMode.ASYNC);
		LockAttempt attempt = attempt("async-fail", LockType.MUTEX);
		RedisHeldLock held = granted(this.provider.tryAcquire(attempt));
		String holder = RedisLockKeys.of(attempt.key(), LockType.MUTEX).holder();
		// the holder key replaced by a list: the release script's GET fails with
		// WRONGTYPE
		this.redis.delete(holder);
		this.redis.opsForList().leftPush(holder, "not-a-lock");
		this.redis.expire(holder, Duration.ofSeconds(5));
		this.provider.release(held);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.provider.failedReleases() == 1);
	}

	@SuppressWarnings("unchecked")
	private long subscribers(String channel) throws Exception {
		try (RedisConnection connection = this.factory.getConnection()) {
			Map<byte[], Long> counts = ((RedisAsyncCommands<byte[], byte[]>) connection.getNativeConnection())
				.pubsubNumsub(channel.getBytes(StandardCharsets.UTF_8))
				.get(5, TimeUnit.SECONDS);
			return counts.values().iterator().next();
		}
	}

	private LockAttempt attempt(String key, LockType type) {
		return new LockAttempt(this.prefix + key, type, 2, Duration.ofSeconds(30), UUID.randomUUID().toString());
	}

	private static RedisHeldLock granted(AttemptOutcome<RedisHeldLock> acquisition) {
		assertThat(acquisition.isAcquired()).as("granted").isTrue();
		return acquisition.lock();
	}

}
