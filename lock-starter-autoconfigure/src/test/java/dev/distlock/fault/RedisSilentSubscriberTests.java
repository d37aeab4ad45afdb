package dev.distlock.fault;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiters whose release subscription gets no answer (Jedis, the subscriber connection
 * silent while the lock commands go through): a waiter must not wait for the subscription
 * past its deadline, must not hold up other waiters behind it, and must fall back to
 * polling, so that both acquire once the holder's lease ends.
 */
class RedisSilentSubscriberTests {

	private static final Duration HOLDER_LEASE = Duration.ofSeconds(1);

	private static final Duration WAIT = Duration.ofSeconds(4);

	@Test
	void waitersWithASilentSubscriberPollAndDoNotQueueBehindEachOther() throws Exception {
		URI uri = TestServers.redisUri();
		String prefix = "silent-subscriber:" + UUID.randomUUID().toString().substring(0, 8) + ":";
		JedisConnectionFactory direct = jedis(uri.getPort());
		try (TcpProxy proxy = TcpProxy.start(uri.getPort())) {
			proxy.cut();
			JedisConnectionFactory silent = jedis(proxy.port());
			RedisLockProvider holder = new RedisLockProvider(direct);
			RedisLockProvider waiters = new RedisLockProvider(subscriberThrough(silent, direct));
			try (LockTemplate template = new LockTemplate(List.of(waiters), "redis",
					LockSettings.defaults().withKeyPrefix(prefix), List.of())) {
				for (String key : List.of("a", "b")) {
					assertThat(holder
						.tryAcquire(new LockAttempt(prefix + key, LockType.MUTEX, 1, HOLDER_LEASE,
								UUID.randomUUID().toString()))
						.isAcquired()).as("holder of " + key).isTrue();
				}
				long start = System.nanoTime();
				List<CompletableFuture<Long>> waits = List.of("a", "b")
					.stream()
					.map((key) -> CompletableFuture.supplyAsync(() -> {
						template.execute(LockRequest.builder(key).waitTime(WAIT).build(), () -> null);
						return System.nanoTime() - start;
					}))
					.toList();
				for (CompletableFuture<Long> wait : waits) {
					Duration took = Duration.ofNanos(wait.get(WAIT.toMillis() + 5000, TimeUnit.MILLISECONDS));
					System.out.printf("silent subscriber: waiter acquired after %d ms (holder's lease %d ms)%n",
							took.toMillis(), HOLDER_LEASE.toMillis());
					assertThat(took).as("waiter acquired by polling once the holder's lease ended")
						.isLessThan(HOLDER_LEASE.plus(Duration.ofMillis(1200)));
				}
			}
			finally {
				waiters.close();
				holder.close();
				silent.destroy();
			}
		}
		finally {
			direct.destroy();
		}
	}

	/**
	 * The factory with the release subscription's connection (the one the listener
	 * container opens) through the silent proxy and every other connection straight to
	 * the server.
	 */
	private static RedisConnectionFactory subscriberThrough(RedisConnectionFactory silent,
			RedisConnectionFactory direct) {
		return (RedisConnectionFactory) Proxy.newProxyInstance(RedisSilentSubscriberTests.class.getClassLoader(),
				new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					boolean subscriber = StackWalker.getInstance()
						.walk((frames) -> frames.anyMatch((frame) -> frame.getClassName()
							.startsWith(RedisMessageListenerContainer.class.getName())));
					try {
						return method.invoke(subscriber ? silent : direct, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	private static JedisConnectionFactory jedis(int port) {
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
