package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.ReleaseSubscription;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Countdown latches on Redis through Spring Data Redis, named {@code redis}. A latch is
 * one string key, {@code {<name>}:latch}, holding the count, set with {@code SET NX PX}
 * so it always has an expiry; a count-down is one script that decrements it (keeping the
 * expiry) and at zero deletes it and publishes on {@code {<name>}:latch:zero}, which
 * wakes the waiters through the same subscription connection the Redis lock provider uses
 * for its release notifications. Every operation is one round trip; the key is
 * cluster-safe (one hash tag).
 *
 * @since 0.2.0
 */
public final class RedisLatchProvider implements LatchProvider {

	private static final RedisScript<Long> SET = script("latch-set.lua");

	private static final RedisScript<Long> COUNT_DOWN = script("latch-count-down.lua");

	/** How long a waiter waits for its channel to be confirmed before it polls. */
	private static final Duration SUBSCRIPTION_TIMEOUT = Duration.ofSeconds(1);

	private final StringRedisTemplate redis;

	private final ReleaseChannels channels;

	/**
	 * Creates a provider.
	 * @param connectionFactory the connections to Redis (the caller closes it)
	 */
	public RedisLatchProvider(RedisConnectionFactory connectionFactory) {
		this.redis = new StringRedisTemplate(connectionFactory);
		this.channels = new ReleaseChannels(
				(wake) -> new ListenerContainerPubSub(connectionFactory, SUBSCRIPTION_TIMEOUT, wake));
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public boolean trySetCount(String latch, long count, Duration expiry) {
		Long set = this.redis.execute(SET, List.of(key(latch)), Long.toString(count),
				Long.toString(Math.max(1, expiry.toMillis())));
		return set != null && set == 1;
	}

	@Override
	public void countDown(String latch) {
		this.redis.execute(COUNT_DOWN, List.of(key(latch)), channel(latch));
	}

	@Override
	public long count(String latch) {
		String count = this.redis.opsForValue().get(key(latch));
		return (count != null) ? Math.max(0, Long.parseLong(count)) : 0;
	}

	@Override
	public ReleaseSubscription subscribe(String latch, Runnable listener) {
		return this.channels.subscribe(channel(latch), listener, SUBSCRIPTION_TIMEOUT);
	}

	@Override
	public void close() {
		this.channels.close();
	}

	static String key(String latch) {
		return "{" + latch + "}:latch";
	}

	private static String channel(String latch) {
		return key(latch) + ":zero";
	}

	private static RedisScript<Long> script(String name) {
		try (InputStream in = RedisLatchProvider.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException(
						"Lua script " + name + " is missing beside " + RedisLatchProvider.class);
			}
			return new DefaultRedisScript<>(new String(in.readAllBytes(), StandardCharsets.UTF_8), Long.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + name, ex);
		}
	}

}
