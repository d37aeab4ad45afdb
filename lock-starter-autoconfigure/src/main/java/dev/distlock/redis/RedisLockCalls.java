package dev.distlock.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.RenewalOutcome;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisSystemException;

import static dev.distlock.redis.RedisArgs.bytes;
import static dev.distlock.redis.RedisArgs.digits;
import static dev.distlock.redis.RedisArgs.keys;

/**
 * Which script each operation of the Redis backend runs, with which keys and arguments:
 * one call, one script, one round trip. {@link RedisLockProvider} keeps the settings and
 * the SPI; this class only lays out the calls.
 */
final class RedisLockCalls {

	private final RedisLockSession session;

	RedisLockCalls(RedisLockSession session) {
		this.session = session;
	}

	/**
	 * Runs the acquire script of the attempt's type, by the attempt's deadline. The lease
	 * is counted from the request that was answered: the attempt is marked sent once the
	 * connection exists, and again before an {@code EVAL} that follows {@code NOSCRIPT}.
	 * @return the fencing token (&gt; 0), or minus the holder's remaining lease in ms, or
	 * 0 when busy without a hint
	 */
	long acquire(LockAttempt attempt, RedisLockKeys keys, byte[] owner, byte[] lease, byte[] retention,
			byte[] waiterTimeout, boolean writerPreference) {
		byte[] fence = keys.fenceKey();
		long deadline = this.session.attemptDeadline(attempt);
		ScriptRunner runner = this.session.runner(deadline);
		RedisLockScripts scripts = this.session.scripts();
		return switch (attempt.type()) {
			case MUTEX -> runner.run(scripts.acquireMutex, keys(keys.holderKey(), fence),
					new byte[][] { owner, lease, retention }, deadline, attempt::markSent);
			case FAIR ->
				runner.run(scripts.acquireFair, keys(keys.holderKey(), keys.queueKey(), keys.waitersKey(), fence),
						new byte[][] { owner, lease, retention, waiterTimeout }, deadline, attempt::markSent);
			case READ ->
				runner.run(scripts.acquireRead, keys(keys.holderKey(), keys.membersKey(), keys.waitersKey(), fence),
						new byte[][] { owner, lease, retention }, deadline, attempt::markSent);
			case WRITE ->
				runner.run(scripts.acquireWrite, keys(keys.holderKey(), keys.membersKey(), keys.waitersKey(), fence),
						new byte[][] { owner, lease, retention, writerPreference ? waiterTimeout : digits(0) },
						deadline, attempt::markSent);
			case SEMAPHORE -> runner.run(scripts.acquireSemaphore, keys(keys.membersKey(), fence),
					new byte[][] { owner, lease, retention, digits(attempt.permits()) }, deadline, attempt::markSent);
		};
	}

	boolean renew(RedisHeldLock held, byte[] leaseMillis, long deadline) {
		return this.session.runner(deadline)
			.run(renewScript(held), renewKeys(held), new byte[][] { held.ownerBytes(), leaseMillis }, deadline) == 1;
	}

	/**
	 * Renews many leases, one batch per script (holders, members): the scripts written
	 * back to back on one connection, one round trip per Redis node (pipelined through
	 * {@code RedisTemplate} for other drivers). Each lease stands on its own reply: one
	 * that failed (its node down, an error) fails that lease only.
	 */
	RenewalOutcome[] renewAll(List<RedisHeldLock> locks, byte[] leaseMillis, long deadline) {
		RenewalOutcome[] renewed = new RenewalOutcome[locks.size()];
		ScriptRunner runner;
		try {
			runner = this.session.runner(deadline);
		}
		catch (RuntimeException ex) {
			Arrays.fill(renewed, RenewalOutcome.failed(ex));
			return renewed;
		}
		boolean batched = !runner.mayBeCluster();
		for (boolean member : new boolean[] { false, true }) {
			if (!member && batched) {
				renewHoldersBatched(runner, locks, leaseMillis, deadline, renewed);
				continue;
			}
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
				ScriptRunner.Reply[] replies = runner.runAll(member ? scripts.renewMember : scripts.renewHolder, keys,
						args, deadline);
				for (int i = 0; i < replies.length; i++) {
					RuntimeException failure = replies[i].failure();
					renewed[positions.get(i)] = (failure != null) ? RenewalOutcome.failed(failure)
							: RenewalOutcome.of(replies[i].value() == 1);
				}
			}
		}
		return renewed;
	}

	/**
	 * Renews the leases of locks held as strings
	 * {@link RedisLockScripts#RENEW_HOLDERS_BATCH} to a script (standalone and Sentinel,
	 * where keys of one script need not share a slot), the scripts written back to back:
	 * one round trip, and a command per 26 leases rather than per lease. A script that
	 * failed fails its leases only; a lease the server failed on alone (code 2) fails
	 * alone.
	 */
	private void renewHoldersBatched(ScriptRunner runner, List<RedisHeldLock> locks, byte[] leaseMillis, long deadline,
			RenewalOutcome[] renewed) {
		int batch = RedisLockScripts.RENEW_HOLDERS_BATCH;
		List<int[]> positions = new ArrayList<>();
		List<byte[][]> keys = new ArrayList<>();
		List<byte[][]> args = new ArrayList<>();
		int[] chunk = new int[batch];
		int size = 0;
		for (int i = 0; i <= locks.size(); i++) {
			if (i < locks.size() && !locks.get(i).keys().heldAsMember()) {
				chunk[size++] = i;
			}
			if (size == batch || (i == locks.size() && size > 0)) {
				byte[][] chunkKeys = new byte[size][];
				byte[][] chunkArgs = new byte[size + 1][];
				chunkArgs[0] = leaseMillis;
				for (int k = 0; k < size; k++) {
					RedisHeldLock held = locks.get(chunk[k]);
					chunkKeys[k] = renewKeys(held)[0];
					chunkArgs[k + 1] = held.ownerBytes();
				}
				positions.add(Arrays.copyOf(chunk, size));
				keys.add(chunkKeys);
				args.add(chunkArgs);
				size = 0;
			}
		}
		if (keys.isEmpty()) {
			return;
		}
		ScriptRunner.Reply[] replies = runner.runAll(this.session.scripts().renewHolders, keys, args, deadline);
		for (int c = 0; c < replies.length; c++) {
			int[] at = positions.get(c);
			RuntimeException failure = replies[c].failure();
			long codes = replies[c].value();
			for (int k = 0; k < at.length; k++) {
				int code = (int) ((codes >>> (2 * k)) & 3);
				renewed[at[k]] = (failure != null) ? RenewalOutcome.failed(failure)
						: (code == 2)
								? RenewalOutcome.failed(new RedisSystemException(
										"Redis failed to renew the lease of " + locks.get(at[k]).attempt(), null))
								: RenewalOutcome.of(code == 1);
			}
		}
	}

	/**
	 * Sends the owner-checked release and runs {@code sent} once it is written to the
	 * connection (also when sending failed). Then waits for the reply, unless
	 * {@code async} and the connection sends asynchronously: a failure is then retried
	 * once with the script's text (a server that lost its scripts) and reported to
	 * {@code onFailure}.
	 */
	void release(RedisHeldLock held, Runnable sent, boolean async, long deadline, Consumer<Throwable> onFailure) {
		CompletableFuture<Long> reply;
		ScriptRunner runner;
		LockScript script;
		byte[][] scriptKeys;
		byte[][] args;
		try {
			RedisLockKeys keys = held.keys();
			boolean member = keys.heldAsMember();
			runner = this.session.runner(deadline);
			script = member ? this.session.scripts().releaseMember : this.session.scripts().releaseHolder;
			byte[] wakeup = keys.wakeupKey();
			scriptKeys = keys(member ? keys.membersKey() : keys.holderKey(), wakeup);
			args = new byte[][] { held.ownerBytes(), wakeup };
			reply = runner.start(script, scriptKeys, args, deadline);
		}
		finally {
			sent.run();
		}
		if (async && runner.sendsAsynchronously()) {
			reply.whenComplete((result, failure) -> {
				if (failure != null) {
					// a server without the script: send its text (ordered after whatever
					// followed meanwhile)
					runner.send(script, scriptKeys, args, deadline, (again) -> {
						if (again != null) {
							onFailure.accept(again);
						}
					});
				}
			});
			return;
		}
		runner.await(reply, script, scriptKeys, args, deadline);
	}

	/**
	 * Releases whatever the attempt may hold and takes it out of the FAIR queue or the
	 * waiting writers, in one script. On an asynchronous connection it is only sent: it
	 * follows the attempt's own requests on that connection, so it also frees a grant
	 * that reaches Redis late (a network that held the request back), and the caller
	 * never waits. Otherwise it runs on a thread of its own.
	 */
	void abandon(LockAttempt attempt, long deadline, Consumer<@Nullable Throwable> onDone) {
		RedisLockKeys keys = RedisLockKeys.of(attempt.key(), attempt.type());
		byte[] wakeup = keys.wakeupKey();
		byte[][] args = new byte[][] { bytes(attempt.owner()), wakeup };
		ScriptRunner runner = this.session.runner(deadline);
		RedisLockScripts scripts = this.session.scripts();
		switch (attempt.type()) {
			case MUTEX -> runner.send(scripts.releaseHolder, keys(keys.holderKey(), wakeup), args, deadline, onDone);
			case FAIR -> runner.send(scripts.releaseHolder,
					keys(keys.holderKey(), wakeup, keys.waitersKey(), keys.queueKey()), args, deadline, onDone);
			case WRITE -> runner.send(scripts.releaseHolder, keys(keys.holderKey(), wakeup, keys.waitersKey()), args,
					deadline, onDone);
			case READ, SEMAPHORE ->
				runner.send(scripts.releaseMember, keys(keys.membersKey(), wakeup), args, deadline, onDone);
		}
	}

	/**
	 * Reads the server's version, which writes nothing: the health probe.
	 * @return the version as {@code redis.REDIS_VERSION_NUM}
	 */
	long serverVersion(long deadline) {
		return this.session.runner(deadline)
			.run(this.session.scripts().serverVersion, new byte[0][], new byte[0][], deadline);
	}

	private LockScript renewScript(RedisHeldLock held) {
		return held.keys().heldAsMember() ? this.session.scripts().renewMember : this.session.scripts().renewHolder;
	}

	private static byte[][] renewKeys(RedisHeldLock held) {
		RedisLockKeys keys = held.keys();
		return keys(keys.heldAsMember() ? keys.membersKey() : keys.holderKey());
	}

}
