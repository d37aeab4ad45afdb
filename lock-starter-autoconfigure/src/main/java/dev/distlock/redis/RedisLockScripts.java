package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Lua scripts of the Redis backend, read once from the {@code .lua} resources beside
 * this class, each with {@code prelude.lua} in front, in two sets that differ only in how
 * a release wakes waiters: {@code PUBLISH} ({@link #classic()}) or {@code SPUBLISH}
 * ({@link #sharded()}, Redis 7+ Cluster, where a notice then goes to the key's shard
 * only). They are sent with {@code EVALSHA}, and with {@code EVAL} once a server answers
 * {@code NOSCRIPT}, so every operation is one round trip. Every script returns an
 * integer; the resources document their keys, arguments and replies.
 */
final class RedisLockScripts {

	private static final RedisLockScripts CLASSIC = new RedisLockScripts("PUBLISH");

	private static final RedisLockScripts SHARDED = new RedisLockScripts("SPUBLISH");

	/**
	 * Most locks {@link #renewHolders} renews in one call: two bits each in a Lua number.
	 */
	static final int RENEW_HOLDERS_BATCH = 26;

	final LockScript acquireMutex;

	final LockScript acquireFair;

	final LockScript acquireRead;

	final LockScript acquireWrite;

	final LockScript acquireSemaphore;

	final LockScript releaseHolder;

	final LockScript releaseMember;

	final LockScript renewHolder;

	final LockScript renewMember;

	/** {@link #renewHolder} for up to {@link #RENEW_HOLDERS_BATCH} locks at once. */
	final LockScript renewHolders;

	final LockScript waitRegister;

	final LockScript waitLeave;

	final LockScript serverVersion;

	private final String prelude;

	private RedisLockScripts(String publishCommand) {
		// Redis refuses globals in scripts, so the choice is a local every prelude
		// function sees
		this.prelude = "local publish_command = '" + publishCommand + "'\n" + read("prelude.lua");
		this.acquireMutex = load("acquire-mutex.lua");
		this.acquireFair = load("acquire-fair.lua");
		this.acquireRead = load("acquire-read.lua");
		this.acquireWrite = load("acquire-write.lua");
		this.acquireSemaphore = load("acquire-semaphore.lua");
		this.releaseHolder = load("release-holder.lua");
		this.releaseMember = load("release-member.lua");
		this.renewHolder = load("renew-holder.lua");
		this.renewMember = load("renew-member.lua");
		this.renewHolders = load("renew-holders.lua");
		this.waitRegister = load("wait-register.lua");
		this.waitLeave = load("wait-leave.lua");
		this.serverVersion = load("server-version.lua");
	}

	/**
	 * The scripts that wake waiters with {@code PUBLISH}.
	 * @return the scripts
	 */
	static RedisLockScripts classic() {
		return CLASSIC;
	}

	/**
	 * The scripts that wake waiters with {@code SPUBLISH} (Redis 7+).
	 * @return the scripts
	 */
	static RedisLockScripts sharded() {
		return SHARDED;
	}

	private LockScript load(String name) {
		return LockScript.of(name, this.prelude + read(name));
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
