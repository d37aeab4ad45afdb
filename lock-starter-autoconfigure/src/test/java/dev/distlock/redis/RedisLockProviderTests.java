package dev.distlock.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.test.TestServers;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.fail;

/**
 * What the Redis backend promises beyond the provider contract, on the Redis at
 * {@link TestServers#redisUri()}: the hash-tagged key layout, busy replies with the
 * holder's lease, fencing past a lost counter, clean-up of abandoned attempts, the FAIR
 * queue and writer preference, one shared subscription, one round trip per operation.
 */
class RedisLockProviderTests {

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	private final String prefix = "rt:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final List<LockProvider<?>> providers = Collections.synchronizedList(new ArrayList<>());

	@BeforeAll
	static void connect() {
		connectionFactory = RedisTestConnections.standalone(TestServers.redisUri(), Duration.ofSeconds(10));
		redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@AfterEach
	void closeProviders() {
		this.providers.forEach(LockProvider::close);
		Set<String> keys = redis.keys("{" + this.prefix + "*");
		if (keys != null && !keys.isEmpty()) {
			redis.delete(keys);
		}
	}

	private RedisLockProvider provider() {
		return provider(connectionFactory);
	}

	private RedisLockProvider provider(RedisConnectionFactory factory) {
		RedisLockProvider provider = new RedisLockProvider(factory);
		this.providers.add(provider);
		return provider;
	}

	private LockAttempt attempt(String key, LockType type, Duration lease) {
		return new LockAttempt(this.prefix + key, type, 1, lease, UUID.randomUUID().toString());
	}

	private static RedisHeldLock granted(AttemptOutcome<RedisHeldLock> acquisition) {
		assertThat(acquisition.isAcquired()).as("granted").isTrue();
		return acquisition.lock();
	}

	// ---------------------------------------------------------------- key layout

	@ParameterizedTest
	@ValueSource(strings = { "lock:orders:42", "}", "}leading", "a}b{c}", "{tagged}", "%7D", "%", "lock:{x}:{y}" })
	void everyKeyOfALockHashesToOneSlotWhateverBracesTheKeyHas(String fullKey) {
		for (LockType type : LockType.values()) {
			RedisLockKeys keys = RedisLockKeys.of(fullKey, type);
			List<String> all = new ArrayList<>(keys.lockState());
			all.add(keys.fence());
			int slot = SlotHash.getSlot(keys.fence());
			assertThat(all).as("keys of %s '%s'", type, fullKey)
				.allSatisfy((key) -> assertThat(SlotHash.getSlot(key)).isEqualTo(slot));
		}
	}

	@Test
	void distinctKeysNeverShareRedisKeys() {
		List<String> userKeys = List.of("}", "%7D", "%257D", "%", "%25", "a}", "a%7D", "a");
		assertThat(userKeys.stream().map(RedisLockKeys::tag).distinct()).hasSize(userKeys.size());
		assertThat(RedisLockKeys.tag("lock:orders:42")).isEqualTo("{lock:orders:42}");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisLockKeys.tag(""));
	}

	@Test
	void keysWithBracesLockLikeAnyOther() throws Exception {
		RedisLockProvider a = provider();
		RedisLockProvider b = provider();
		for (String key : List.of("}", "a}b{c}", "{tagged}")) {
			var held = granted(a.tryAcquire(attempt(key, LockType.MUTEX, Duration.ofSeconds(10))));
			assertThat(b.tryAcquire(attempt(key, LockType.MUTEX, Duration.ofSeconds(10))).isAcquired()).isFalse();
			a.release(held);
			b.release(granted(b.tryAcquire(attempt(key, LockType.MUTEX, Duration.ofSeconds(10)))));
		}
	}

	@Test
	void keysWithUnpairedSurrogatesDoNotAliasOtherKeys() throws Exception {
		RedisLockProvider provider = provider();
		granted(provider.tryAcquire(attempt("k\uD800", LockType.MUTEX, Duration.ofSeconds(10))));
		assertThat(provider.tryAcquire(attempt("k?", LockType.MUTEX, Duration.ofSeconds(10))).isAcquired())
			.as("'k?' is another lock than 'k\\uD800'")
			.isTrue();
		assertThat(provider.tryAcquire(attempt("k\uDC00", LockType.MUTEX, Duration.ofSeconds(10))).isAcquired())
			.as("'k\\uDC00' is another lock than 'k\\uD800'")
			.isTrue();
		assertThat(provider.tryAcquire(attempt("k\uD800", LockType.MUTEX, Duration.ofSeconds(10))).isAcquired())
			.as("'k\\uD800' is still held")
			.isFalse();
		assertThat(RedisLockKeys.tag("k\uD83D\uDE00")).as("a surrogate pair is an ordinary character")
			.isEqualTo("{k\uD83D\uDE00}");
	}

	@Test
	void aLeaseWithAFractionOfAMillisecondIsRoundedUp() throws Exception {
		RedisLockProvider provider = provider();
		LockAttempt attempt = attempt("fraction", LockType.SEMAPHORE, Duration.ofMillis(1000).plusNanos(500_000));
		RedisHeldLock held = granted(provider.tryAcquire(attempt));
		// a fresh key's token is the server time in µs the script read; the permit's
		// score is that time in ms + lease
		Double score = redis.opsForZSet()
			.score(RedisLockKeys.of(attempt.key(), LockType.SEMAPHORE).members(), attempt.owner());
		assertThat(score).isNotNull();
		assertThat(score.longValue() - held.fencingToken() / 1000).as("lease set on the server, in ms").isEqualTo(1001);
	}

	// ---------------------------------------------------------------- busy replies and
	// fencing

	@ParameterizedTest
	@EnumSource(value = LockType.class, names = { "MUTEX", "FAIR", "WRITE", "SEMAPHORE" })
	void busyAttemptTellsWhenTheHoldersLeaseEnds(LockType type) throws Exception {
		RedisLockProvider provider = provider();
		provider.tryAcquire(attempt("busy", type, Duration.ofSeconds(10)));
		AttemptOutcome<RedisHeldLock> busy = provider.tryAcquire(attempt("busy", type, Duration.ofSeconds(10)));
		assertThat(busy.isAcquired()).isFalse();
		assertThat(busy.retryAfter()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
	}

	@Test
	void readerBlockedByAWriterIsToldWhenTheWriterLeaseEnds() throws Exception {
		RedisLockProvider provider = provider();
		granted(provider.tryAcquire(attempt("busy", LockType.WRITE, Duration.ofSeconds(10))));
		AttemptOutcome<RedisHeldLock> busy = provider
			.tryAcquire(attempt("busy", LockType.READ, Duration.ofSeconds(10)));
		assertThat(busy.isAcquired()).isFalse();
		assertThat(busy.retryAfter()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void fencingTokensKeepIncreasingWhenTheCounterIsLost(LockType type) throws Exception {
		RedisLockProvider provider = provider();
		LockAttempt first = attempt("fence", type, Duration.ofSeconds(10));
		var held = granted(provider.tryAcquire(first));
		provider.release(held);
		// what a restart without persistence or a failover that lost the last write does
		// to the counter
		redis.delete(RedisLockKeys.of(first.key(), type).fence());
		RedisHeldLock next = granted(provider.tryAcquire(attempt("fence", type, Duration.ofSeconds(10))));
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
	}

	@Test
	void fencingCounterExpiresAfterItsRetention() throws Exception {
		RedisLockProvider provider = provider();
		provider.setFenceRetention(Duration.ofMillis(1500));
		LockAttempt attempt = attempt("retention", LockType.MUTEX, Duration.ofMillis(500));
		provider.release(granted(provider.tryAcquire(attempt)));
		Long ttl = redis.getExpire(RedisLockKeys.of(attempt.key(), LockType.MUTEX).fence(),
				java.util.concurrent.TimeUnit.MILLISECONDS);
		assertThat(ttl).isBetween(1L, 1500L);
	}

	// ---------------------------------------------------------------- abandon

	@ParameterizedTest
	@EnumSource(LockType.class)
	void abandonReleasesAGrantWhoseReplyWasLost(LockType type) throws Exception {
		RedisLockProvider provider = provider();
		LockAttempt lost = attempt("abandon", type, Duration.ofSeconds(30));
		granted(provider.tryAcquire(lost));
		LockType blockerType = (type == LockType.READ) ? LockType.WRITE : type;
		LockAttempt blocker = attempt("abandon", blockerType, Duration.ofSeconds(30));
		assertThat(provider.tryAcquire(blocker).isAcquired()).as("held by the attempt whose reply was lost").isFalse();
		provider.abandon(lost);
		RedisHeldLock next = granted(provider.tryAcquire(blocker));
		provider.release(next);
		provider.abandon(lost); // a second clean-up finds nothing and does not fail
	}

	@Test
	void staleReleaseAndRenewalTouchNothing() throws Exception {
		RedisLockProvider provider = provider();
		LockAttempt stale = attempt("stale", LockType.MUTEX, Duration.ofMillis(300));
		RedisHeldLock staleLock = granted(provider.tryAcquire(stale));
		Thread.sleep(400);
		RedisHeldLock successor = granted(
				provider.tryAcquire(attempt("stale", LockType.MUTEX, Duration.ofSeconds(30))));
		assertThat(provider.renew(staleLock, Duration.ofSeconds(30))).isFalse();
		provider.release(staleLock);
		assertThat(provider.renew(successor, Duration.ofSeconds(30))).isTrue();
	}

	// ---------------------------------------------------------------- FAIR queue

	@Test
	void abandonedFairWaiterLeavesTheQueueAtOnce() throws Exception {
		RedisLockProvider provider = provider();
		RedisHeldLock holder = granted(provider.tryAcquire(attempt("fair", LockType.FAIR, Duration.ofSeconds(30))));
		LockAttempt gaveUp = attempt("fair", LockType.FAIR, Duration.ofSeconds(30));
		assertThat(provider.tryAcquire(gaveUp).isAcquired()).isFalse();
		provider.release(holder);
		LockAttempt next = attempt("fair", LockType.FAIR, Duration.ofSeconds(30));
		AttemptOutcome<RedisHeldLock> behind = provider.tryAcquire(next);
		assertThat(behind.isAcquired()).as("queued behind the first waiter").isFalse();
		assertThat(behind.retryAfter()).as("no lease to wait for, a waiter ahead").isNull();
		provider.abandon(gaveUp);
		granted(provider.tryAcquire(next));
	}

	@Test
	void deadFairWaiterLeavesTheQueueAfterTheWaiterTimeout() throws Exception {
		RedisLockProvider provider = provider();
		provider.setWaiterTimeout(Duration.ofSeconds(1));
		RedisHeldLock holder = granted(provider.tryAcquire(attempt("fair", LockType.FAIR, Duration.ofSeconds(30))));
		long beforeDeadWaiter = System.nanoTime();
		assertThat(provider.tryAcquire(attempt("fair", LockType.FAIR, Duration.ofSeconds(30))).isAcquired())
			.as("the waiter that dies")
			.isFalse();
		provider.release(holder);
		LockAttempt live = attempt("fair", LockType.FAIR, Duration.ofSeconds(30));
		RedisHeldLock granted = null;
		while (granted == null && System.nanoTime() - beforeDeadWaiter < Duration.ofSeconds(10).toNanos()) {
			AttemptOutcome<RedisHeldLock> outcome = provider.tryAcquire(live);
			granted = outcome.isAcquired() ? outcome.lock() : null;
			Thread.sleep(20);
		}
		assertThat(granted).as("the live waiter gets the lock once the dead one's place timed out").isNotNull();
		// the place timed out a second after it was taken, on the server's clock, which
		// was after beforeDeadWaiter
		assertThat(Duration.ofNanos(System.nanoTime() - beforeDeadWaiter))
			.as("the dead waiter kept its place until its timeout")
			.isGreaterThan(Duration.ofMillis(950));
	}

	// ---------------------------------------------------------------- READ/WRITE

	@Test
	void waitingWriterHoldsBackNewReaders() throws Exception {
		RedisLockProvider provider = provider();
		RedisHeldLock reader = granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30))));
		LockAttempt writer = attempt("rw", LockType.WRITE, Duration.ofSeconds(30));
		assertThat(provider.tryAcquire(writer).isAcquired()).isFalse();
		AttemptOutcome<RedisHeldLock> lateReader = provider
			.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30)));
		assertThat(lateReader.isAcquired()).as("a reader arriving while a writer waits").isFalse();
		provider.release(reader);
		RedisHeldLock written = granted(provider.tryAcquire(writer));
		provider.release(written);
		granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30))));
	}

	@Test
	void withoutWriterPreferenceReadersPassAWaitingWriter() throws Exception {
		RedisLockProvider provider = provider();
		provider.setWriterPreference(false);
		granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30))));
		assertThat(provider.tryAcquire(attempt("rw", LockType.WRITE, Duration.ofSeconds(30))).isAcquired()).isFalse();
		granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30))));
	}

	@Test
	void writerThatGaveUpNoLongerHoldsBackReaders() throws Exception {
		RedisLockProvider provider = provider();
		granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30))));
		LockAttempt writer = attempt("rw", LockType.WRITE, Duration.ofSeconds(30));
		assertThat(provider.tryAcquire(writer).isAcquired()).isFalse();
		provider.abandon(writer);
		granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30))));
	}

	@Test
	void deadReaderHoldEndsWithItsLease() throws Exception {
		RedisLockProvider provider = provider();
		granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofMillis(300))));
		RedisHeldLock live = granted(provider.tryAcquire(attempt("rw", LockType.READ, Duration.ofSeconds(30))));
		Thread.sleep(400);
		provider.release(live);
		granted(provider.tryAcquire(attempt("rw", LockType.WRITE, Duration.ofSeconds(30))));
	}

	// ---------------------------------------------------------------- notifications

	@Test
	void waitersOfOneLockShareOneSubscriptionAndAllLocksOneConnection() throws Exception {
		String clientName = "distlock-test-" + UUID.randomUUID().toString().substring(0, 8);
		LettuceConnectionFactory named = RedisTestConnections.standalone(TestServers.redisUri(), Duration.ofSeconds(10),
				clientName);
		RedisLockProvider waiting = new RedisLockProvider(named);
		try {
			RedisLockProvider releasing = provider();
			LockAttempt lock = attempt("notify", LockType.MUTEX, Duration.ofSeconds(30));
			String channel = RedisLockKeys.of(lock.key(), LockType.MUTEX).channel();
			AtomicInteger woken = new AtomicInteger();
			ReleaseSubscription first = waiting.subscribe(lock, woken::incrementAndGet);
			ReleaseSubscription second = waiting.subscribe(lock, woken::incrementAndGet);
			ReleaseSubscription other = waiting.subscribe(attempt("other", LockType.SEMAPHORE, Duration.ofSeconds(1)),
					() -> {
					});
			assertThat(first.isActive()).isTrue();
			assertThat(subscribers(channel)).as("Redis subscriptions of the channel").isEqualTo(1);
			assertThat(pubSubConnections(clientName)).as("subscription connections of the provider").isEqualTo(1);
			releasing.release(granted(releasing.tryAcquire(lock)));
			awaitTrue("both waiters woken", () -> woken.get() == 2);
			first.close();
			second.close();
			other.close();
			awaitTrue("channel unsubscribed after its last waiter left", () -> subscribers(channel) == 0);
		}
		finally {
			waiting.close();
			named.destroy();
		}
	}

	private static long subscribers(String channel) {
		return nativeCall(connectionFactory, (commands) -> commands.pubsubNumsub(channel.getBytes())).values()
			.iterator()
			.next();
	}

	private static long pubSubConnections(String clientName) {
		String clients = nativeCall(connectionFactory, (commands) -> commands.clientList());
		return clients.lines()
			.filter((line) -> line.contains(" name=" + clientName + " ") && line.contains(" cmd=subscribe"))
			.count();
	}

	@SuppressWarnings("unchecked")
	private static <T> T nativeCall(LettuceConnectionFactory factory,
			java.util.function.Function<RedisAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
		try (RedisConnection connection = factory.getConnection()) {
			return command.apply((RedisAsyncCommands<byte[], byte[]>) connection.getNativeConnection())
				.get(10, java.util.concurrent.TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	// ---------------------------------------------------------------- round trips

	@ParameterizedTest
	@EnumSource(LockType.class)
	void uncontendedAcquireAndReleaseAreOneRoundTripEach(LockType type) throws Exception {
		List<String> calls = Collections.synchronizedList(new ArrayList<>());
		LockTemplate template = new LockTemplate(provider(counting(connectionFactory, calls)));
		LockRequest request = LockRequest.builder("roundtrips").type(type).lease(Duration.ofSeconds(30)).build();
		try {
			template.acquire(request).release(); // loads the scripts (EVALSHA answered
													// NOSCRIPT, then EVAL)
			calls.clear();
			Lease lease = template.acquire(request);
			assertThat(calls).as("calls of an uncontended acquire").containsExactly("evalSha");
			calls.clear();
			lease.release();
			assertThat(calls).as("calls of a release").containsExactly("evalSha");
		}
		finally {
			template.close();
		}
	}

	/**
	 * A connection factory whose connections record every Redis command sent through
	 * them.
	 */
	private static RedisConnectionFactory counting(RedisConnectionFactory factory, List<String> calls) {
		Set<String> notCommands = Set.of("close", "isClosed", "isPipelined", "isQueueing", "getNativeConnection",
				"isSubscribed", "getSubscription", "hashCode", "equals", "toString");
		return (RedisConnectionFactory) Proxy.newProxyInstance(RedisLockProviderTests.class.getClassLoader(),
				new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					Object result = invoke(method, factory, args);
					if (!method.getName().equals("getConnection")) {
						return result;
					}
					RedisConnection connection = (RedisConnection) result;
					return Proxy.newProxyInstance(RedisLockProviderTests.class.getClassLoader(),
							new Class<?>[] { RedisConnection.class }, (p, m, a) -> {
								if (!notCommands.contains(m.getName())) {
									calls.add(m.getName());
								}
								return invoke(m, connection, a);
							});
				});
	}

	private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	private static void awaitTrue(String what, java.util.function.BooleanSupplier condition)
			throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				fail("Timed out waiting for: " + what);
			}
			Thread.sleep(10);
		}
	}

}
