package dev.distlock.fencing;

import java.time.Duration;
import java.util.List;

import dev.distlock.core.Lease;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Fenced Redis writes: {@link #set(String, String)} and
 * {@link #hset(String, String, String)} write only if the key (or hash field) has
 * recorded no fencing token greater than the current lease's, and record the lease's
 * token, in one script; otherwise they change nothing and throw
 * {@link StaleFencingTokenException}. The condition is {@code stored <= token}: equal
 * tokens pass, because one lease (and its re-entrant holds) may write a key several times
 * with its one token, and every earlier holder is still refused, because two holders of
 * an exclusive lock never share a token (docs/fencing.md).
 * <p>
 * The token of key {@code k} lives beside it in {@code {k}:fencing-token} (a string; for
 * a hash, {@code {k}:fencing-tokens}, one field per field), or in
 * {@code k:fencing-token(s)} when {@code k} already has a hash tag, so that both keys
 * share a Redis Cluster slot. Read the values with plain {@code GET}/{@code HGET}; delete
 * the token key with the value when the value is retired for good. Thread-safe.
 *
 * @since 0.1.0
 */
public class RedisFencing extends FencedWriter {

	private static final RedisScript<String> SET = RedisScript
		.of(new ClassPathResource("dev/distlock/fencing/fenced-set.lua"), String.class);

	private static final RedisScript<String> HSET = RedisScript
		.of(new ClassPathResource("dev/distlock/fencing/fenced-hset.lua"), String.class);

	private final StringRedisTemplate redis;

	/**
	 * Creates fenced writes over a template.
	 * @param redis the template
	 * @param listener told of every refusal (metrics)
	 */
	public RedisFencing(StringRedisTemplate redis, FencingListener listener) {
		super(listener);
		this.redis = redis;
	}

	/**
	 * Sets a string value with the token of the lease current in
	 * {@link dev.distlock.core.LockContext}.
	 * @param key the key
	 * @param value the value
	 * @throws StaleFencingTokenException if the key has recorded a greater token
	 * @throws IllegalStateException if no lease is current
	 */
	public void set(String key, String value) {
		Lease lease = currentLease();
		set(key, value, null, lease.fencingToken(), lease.name());
	}

	/**
	 * Sets a string value that expires, together with its token, after
	 * {@code timeToLive}, with the token of the lease current in
	 * {@link dev.distlock.core.LockContext}.
	 * @param key the key
	 * @param value the value
	 * @param timeToLive positive time to live
	 * @throws StaleFencingTokenException if the key has recorded a greater token
	 */
	public void set(String key, String value, Duration timeToLive) {
		Lease lease = currentLease();
		set(key, value, timeToLive, lease.fencingToken(), lease.name());
	}

	/**
	 * Sets a string value with an explicit token (for code that holds a lease away from
	 * the thread that acquired it, pass {@link Lease#fencingToken()}).
	 * @param key the key
	 * @param value the value
	 * @param token the fencing token, not negative
	 * @throws StaleFencingTokenException if the key has recorded a greater token
	 */
	public void set(String key, String value, long token) {
		set(key, value, null, token, null);
	}

	/**
	 * Sets a string value that expires, together with its token, after
	 * {@code timeToLive}, with an explicit token.
	 * @param key the key
	 * @param value the value
	 * @param timeToLive positive time to live
	 * @param token the fencing token, not negative
	 * @throws StaleFencingTokenException if the key has recorded a greater token
	 */
	public void set(String key, String value, Duration timeToLive, long token) {
		set(key, value, timeToLive, token, null);
	}

	/**
	 * Sets a hash field with the token of the lease current in
	 * {@link dev.distlock.core.LockContext}.
	 * @param key the hash's key
	 * @param field the field
	 * @param value the value
	 * @throws StaleFencingTokenException if the field has recorded a greater token
	 * @throws IllegalStateException if no lease is current
	 */
	public void hset(String key, String field, String value) {
		Lease lease = currentLease();
		hset(key, field, value, lease.fencingToken(), lease.name());
	}

	/**
	 * Sets a hash field with an explicit token.
	 * @param key the hash's key
	 * @param field the field
	 * @param value the value
	 * @param token the fencing token, not negative
	 * @throws StaleFencingTokenException if the field has recorded a greater token
	 */
	public void hset(String key, String field, String value, long token) {
		hset(key, field, value, token, null);
	}

	private void set(String key, String value, @Nullable Duration timeToLive, long token, @Nullable String name) {
		checkToken(token);
		if (timeToLive != null && (timeToLive.isNegative() || timeToLive.toMillis() < 1)) {
			throw new IllegalArgumentException(
					"Time to live of fenced key '" + key + "' must be at least 1 ms, was " + timeToLive);
		}
		String recorded = this.redis.execute(SET, List.of(key, tokenKey(key, ":fencing-token")), value,
				Long.toString(token), (timeToLive != null) ? Long.toString(timeToLive.toMillis()) : "0");
		if (recorded != null) {
			throw refused("redis", name, "Redis key '" + key + "'", token, Long.valueOf(recorded));
		}
	}

	private void hset(String key, String field, String value, long token, @Nullable String name) {
		checkToken(token);
		String recorded = this.redis.execute(HSET, List.of(key, tokenKey(key, ":fencing-tokens")), field, value,
				Long.toString(token));
		if (recorded != null) {
			throw refused("redis", name, "Redis hash '" + key + "' field '" + field + "'", token,
					Long.valueOf(recorded));
		}
	}

	/** The token key, in the same cluster slot as {@code key}. */
	static String tokenKey(String key, String suffix) {
		int open = key.indexOf('{');
		int close = (open >= 0) ? key.indexOf('}', open + 1) : -1;
		boolean tagged = close > open + 1;
		return tagged ? key + suffix : "{" + key + "}" + suffix;
	}

}
