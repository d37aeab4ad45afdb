package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.core.spi.LockAttempt;

import static dev.distlock.redis.RedisArgs.bytes;
import static dev.distlock.redis.RedisArgs.digits;
import static dev.distlock.redis.RedisArgs.keys;

/**
 * Which script each operation of the Redis backend runs, with which keys and arguments: one call, one script, one
 * round trip. {@link RedisLockProvider} keeps the settings and the SPI; this class only lays out the calls.
 */
final class RedisLockCalls {

	private final RedisLockSession session;

	RedisLockCalls(RedisLockSession session) {
		this.session = session;
	}

	/**
	 * Runs the acquire script of the attempt's type.
	 * @return the fencing token (&gt; 0), or minus the holder's remaining lease in ms, or 0 when busy without a hint
	 */
	long acquire(LockAttempt attempt, RedisLockKeys keys, byte[] owner, byte[] lease, byte[] retention,
			byte[] waiterTimeout, boolean writerPreference) {
		byte[] fence = keys.fenceKey();
		ScriptRunner runner = this.session.runner();
		RedisLockScripts scripts = this.session.scripts();
		return switch (attempt.type()) {
			case MUTEX -> runner.run(scripts.acquireMutex, keys(keys.holderKey(), fence), owner, lease, retention);
			case FAIR -> runner.run(scripts.acquireFair,
					keys(keys.holderKey(), keys.queueKey(), keys.waitersKey(), fence), owner, lease, retention,
					waiterTimeout);
			case READ -> runner.run(scripts.acquireRead,
					keys(keys.holderKey(), keys.membersKey(), keys.waitersKey(), fence), owner, lease, retention);
			case WRITE -> runner.run(scripts.acquireWrite,
					keys(keys.holderKey(), keys.membersKey(), keys.waitersKey(), fence), owner, lease, retention,
					writerPreference ? waiterTimeout : digits(0));
			case SEMAPHORE -> runner.run(scripts.acquireSemaphore, keys(keys.membersKey(), fence), owner, lease,
					retention, digits(attempt.permits()));
		};
	}

	boolean renew(RedisHeldLock held, byte[] leaseMillis) {
		return this.session.runner().run(renewScript(held), renewKeys(held), held.ownerBytes(), leaseMillis) == 1;
	}

	/**
	 * Renews many leases, one batch per script (holders, members): the scripts written back to back on one
	 * connection, one round trip per Redis node (pipelined through {@code RedisTemplate} for other drivers).
	 */
	boolean[] renewAll(List<RedisHeldLock> locks, byte[] leaseMillis) {
		boolean[] renewed = new boolean[locks.size()];
		for (boolean member : new boolean[] { false, true }) {
			List<Integer> positions = new ArrayList<>();
			List<byte[][]> keys = new ArrayList<>();
			List<byte[][]> args = new ArrayList<>();
			for (int i = 0; i < locks.size(); i++) {
				RedisHeldLock held = locks.get(i);
				if (held.keys().heldAsMember() == member) {
					positions.add(i);
					keys.add(renewKeys(held));
					args.add(new byte[][] { held.ownerBytes(), leaseMillis });
				}
			}
			if (!positions.isEmpty()) {
				RedisLockScripts scripts = this.session.scripts();
				long[] replies = this.session.runner()
					.runAll(member ? scripts.renewMember : scripts.renewHolder, keys, args);
				for (int i = 0; i < replies.length; i++) {
					renewed[positions.get(i)] = replies[i] == 1;
				}
			}
		}
		return renewed;
	}

	/**
	 * Sends the owner-checked release and runs {@code sent} once it is written to the connection (also when sending
	 * failed). Then waits for the reply, unless {@code async} and the connection sends asynchronously: a failure is
	 * then retried once with the script's text (a server that lost its scripts) and reported to {@code onFailure}.
	 */
	void release(RedisHeldLock held, Runnable sent, boolean async, Consumer<Throwable> onFailure) {
		CompletableFuture<Long> reply;
		ScriptRunner runner;
		LockScript script;
		byte[][] scriptKeys;
		byte[][] args;
		try {
			RedisLockKeys keys = held.keys();
			boolean member = keys.heldAsMember();
			runner = this.session.runner();
			script = member ? this.session.scripts().releaseMember : this.session.scripts().releaseHolder;
			scriptKeys = keys(member ? keys.membersKey() : keys.holderKey(), keys.wakeupKey());
			args = new byte[][] { held.ownerBytes(), keys.wakeupKey() };
			reply = runner.start(script, scriptKeys, args);
		}
		finally {
			sent.run();
		}
		if (async && runner.sendsAsynchronously()) {
			reply.whenComplete((result, failure) -> {
				if (failure != null) {
					// a server without the script: send its text (ordered after whatever followed meanwhile)
					runner.send(script, scriptKeys, args, onFailure);
				}
			});
			return;
		}
		runner.await(reply, script, scriptKeys, args);
	}

	/**
	 * Releases whatever the attempt may hold and takes it out of the FAIR queue or the waiting writers, in one script.
	 */
	void abandon(LockAttempt attempt) {
		RedisLockKeys keys = RedisLockKeys.of(attempt.key(), attempt.type());
		byte[] owner = bytes(attempt.owner());
		byte[] wakeup = keys.wakeupKey();
		ScriptRunner runner = this.session.runner();
		RedisLockScripts scripts = this.session.scripts();
		switch (attempt.type()) {
			case MUTEX -> runner.run(scripts.releaseHolder, keys(keys.holderKey(), wakeup), owner, wakeup);
			case FAIR -> runner.run(scripts.releaseHolder,
					keys(keys.holderKey(), wakeup, keys.waitersKey(), keys.queueKey()), owner, wakeup);
			case WRITE -> runner.run(scripts.releaseHolder, keys(keys.holderKey(), wakeup, keys.waitersKey()), owner,
					wakeup);
			case READ, SEMAPHORE -> runner.run(scripts.releaseMember, keys(keys.membersKey(), wakeup), owner, wakeup);
		}
	}

	private LockScript renewScript(RedisHeldLock held) {
		return held.keys().heldAsMember() ? this.session.scripts().renewMember : this.session.scripts().renewHolder;
	}

	private static byte[][] renewKeys(RedisHeldLock held) {
		RedisLockKeys keys = held.keys();
		return keys(keys.heldAsMember() ? keys.membersKey() : keys.holderKey());
	}

}
