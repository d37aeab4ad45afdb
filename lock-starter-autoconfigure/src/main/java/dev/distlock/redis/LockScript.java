package dev.distlock.redis;

import java.nio.charset.StandardCharsets;

import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One Lua script of the Redis backend: its text, its SHA-1 digest (for {@code EVALSHA})
 * and the same script as Spring Data Redis' {@link RedisScript} for the
 * {@code RedisTemplate} path. Every script returns an integer.
 *
 * @param name the resource it was read from, for messages
 * @param body the script text, prelude included
 * @param sha1 the hex SHA-1 digest of {@code body}
 * @param redisScript the script for {@code RedisTemplate}
 */
record LockScript(String name, byte[] body, String sha1, RedisScript<Long> redisScript) {

	static LockScript of(String name, String text) {
		RedisScript<Long> script = new DefaultRedisScript<>(text, Long.class);
		return new LockScript(name, text.getBytes(StandardCharsets.UTF_8), script.getSha1(), script);
	}

	@Override
	public String toString() {
		return this.name;
	}

}
