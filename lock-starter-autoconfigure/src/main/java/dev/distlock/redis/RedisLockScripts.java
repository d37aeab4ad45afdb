package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of the Redis backend, read once from the {@code .lua} resources beside this class, each with
 * {@code prelude.lua} in front. Spring's script executor sends them with EVALSHA and falls back to EVAL once per
 * server when it answers NOSCRIPT, so every operation is one round trip. Every script returns an integer; the
 * resources document their keys, arguments and replies.
 */
final class RedisLockScripts {

	static final RedisScript<Long> ACQUIRE_MUTEX = load("acquire-mutex.lua");

	static final RedisScript<Long> ACQUIRE_FAIR = load("acquire-fair.lua");

	static final RedisScript<Long> ACQUIRE_READ = load("acquire-read.lua");

	static final RedisScript<Long> ACQUIRE_WRITE = load("acquire-write.lua");

	static final RedisScript<Long> ACQUIRE_SEMAPHORE = load("acquire-semaphore.lua");

	static final RedisScript<Long> RELEASE_HOLDER = load("release-holder.lua");

	static final RedisScript<Long> RELEASE_MEMBER = load("release-member.lua");

	static final RedisScript<Long> RENEW_HOLDER = load("renew-holder.lua");

	static final RedisScript<Long> RENEW_MEMBER = load("renew-member.lua");

	private RedisLockScripts() {
	}

	private static RedisScript<Long> load(String name) {
		return new DefaultRedisScript<>(read("prelude.lua") + read(name), Long.class);
	}

	private static String read(String name) {
		try (InputStream in = RedisLockScripts.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + name + " is missing beside " + RedisLockScripts.class);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + name, ex);
		}
	}

}
