package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * Runs scripts on Lettuce's own asynchronous API, on the connection factory's shared
 * native connection (standalone, Sentinel, Cluster, SSL, client name: whatever
 * {@code spring.data.redis.*} configured), outside Spring Data Redis' per-call connection
 * wrapper: {@code EVALSHA}, and {@code EVAL} when the server answers {@code NOSCRIPT}
 * (after a restart or {@code SCRIPT FLUSH}), which also loads the script again. Each
 * reply is awaited until the caller's deadline or the factory's command timeout,
 * whichever comes first; failures are translated as Spring Data Redis translates them.
 * <p>
 * The factory's connection is held for the runner's life: with
 * {@code shareNativeConnection} (Boot's default) that is the connection the application's
 * {@code RedisTemplate} shares; without it, a dedicated one.
 */
final class LettuceScriptRunner implements ScriptRunner {

	/** Redis 7.0, the first with sharded pub/sub, as {@code redis.REDIS_VERSION_NUM}. */
	private static final long SHARDED_PUBSUB_VERSION = 0x070000;

	private static final LettuceExceptionConverter EXCEPTIONS = new LettuceExceptionConverter();

	private final RedisConnection connection;

	private final RedisScriptingAsyncCommands<byte[], byte[]> commands;

	private final long timeoutNanos;

	private LettuceScriptRunner(RedisConnection connection, RedisScriptingAsyncCommands<byte[], byte[]> commands,
			long timeoutMillis) {
		this.connection = connection;
		this.commands = commands;
		this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, timeoutMillis));
	}

	/**
	 * A runner on the factory's native connection, or {@code null} when the factory is
	 * not Lettuce's.
	 * @param connectionFactory the application's connection factory
	 * @return the runner, or {@code null}
	 */
	@SuppressWarnings("unchecked")
	static @Nullable LettuceScriptRunner of(RedisConnectionFactory connectionFactory) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			return null;
		}
		RedisConnection connection = lettuce.isClusterAware() ? lettuce.getClusterConnection()
				: lettuce.getConnection();
		if (connection.getNativeConnection() instanceof RedisScriptingAsyncCommands<?, ?> commands) {
			return new LettuceScriptRunner(connection, (RedisScriptingAsyncCommands<byte[], byte[]>) commands,
					lettuce.getTimeout());
		}
		connection.close();
		return null;
	}

	/**
	 * Release notices over sharded pub/sub when the factory connects to a Redis 7+
	 * Cluster, else {@code null}.
	 * @param connectionFactory the application's connection factory
	 * @param runner a runner on it
	 * @param timeout how long a subscription may take
	 * @return the sharded channels, or {@code null} for classic pub/sub
	 */
	static @Nullable ReleaseChannels shardedChannels(RedisConnectionFactory connectionFactory, ScriptRunner runner,
			Duration timeout) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware()
				&& lettuce.getNativeClient() instanceof RedisClusterClient client
				&& runner.run(RedisLockScripts.classic().serverVersion, new byte[0][], new byte[0][],
						System.nanoTime() + timeout.toNanos()) >= SHARDED_PUBSUB_VERSION) {
			return new ReleaseChannels((wake) -> new ShardedPubSub(client, timeout, wake));
		}
		return null;
	}

	@Override
	public long run(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos, Runnable sending) {
		sending.run();
		CompletableFuture<Long> reply = start(script, keys, args, deadlineNanos);
		try {
			return await(reply, deadlineNanos);
		}
		catch (RedisNoScriptException ex) {
			sending.run();
			return await(eval(script, keys, args), deadlineNanos);
		}
	}

	@Override
	public CompletableFuture<Long> start(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos) {
		return this.commands.<Long>evalsha(script.sha1(), ScriptOutputType.INTEGER, keys, args).toCompletableFuture();
	}

	@Override
	public long await(CompletableFuture<Long> reply, LockScript script, byte[][] keys, byte[][] args,
			long deadlineNanos) {
		try {
			return await(reply, deadlineNanos);
		}
		catch (RedisNoScriptException ex) {
			return await(eval(script, keys, args), deadlineNanos);
		}
	}

	private CompletableFuture<Long> eval(LockScript script, byte[][] keys, byte[][] args) {
		return this.commands.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args).toCompletableFuture();
	}

	@Override
	public void send(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos,
			Consumer<@Nullable Throwable> onDone) {
		RedisFuture<Long> reply = this.commands.evalsha(script.sha1(), ScriptOutputType.INTEGER, keys, args);
		reply.whenComplete((result, failure) -> {
			if (failure instanceof RedisNoScriptException) {
				this.commands.<Long>eval(script.body(), ScriptOutputType.INTEGER, keys, args)
					.whenComplete((again, failedAgain) -> onDone.accept(failedAgain));
			}
			else {
				onDone.accept(failure);
			}
		});
	}

	@Override
	public Reply[] runAll(LockScript script, List<byte[][]> keys, List<byte[][]> args, long deadlineNanos) {
		// Lettuce writes the commands back to back on one connection: one round trip for
		// a node's whole batch
		@SuppressWarnings("unchecked")
		CompletableFuture<Long>[] replies = new CompletableFuture[keys.size()];
		for (int i = 0; i < replies.length; i++) {
			replies[i] = start(script, keys.get(i), args.get(i), deadlineNanos);
		}
		Reply[] results = new Reply[replies.length];
		for (int i = 0; i < replies.length; i++) {
			try {
				results[i] = new Reply(await(replies[i], script, keys.get(i), args.get(i), deadlineNanos), null);
			}
			catch (RuntimeException ex) {
				results[i] = Reply.failed(ex);
			}
		}
		return results;
	}

	@Override
	public long waitForReplicas(int replicas, Duration timeout, long deadlineNanos) {
		if (!(this.commands instanceof RedisAsyncCommands<byte[], byte[]> standalone)) {
			throw new UnsupportedOperationException("distlock.redis.wait-for-replicas works on standalone and "
					+ "Sentinel connections only: a cluster connection sends WAIT to an arbitrary node");
		}
		RedisFuture<Long> acknowledged = standalone.waitForReplication(replicas, Math.max(1, timeout.toMillis()));
		Long count = awaitFor(acknowledged.toCompletableFuture(),
				Math.min(this.timeoutNanos + timeout.toNanos(), deadlineNanos - System.nanoTime()));
		return (count != null) ? count : 0;
	}

	@Override
	public boolean mayBeCluster() {
		return !(this.commands instanceof RedisAsyncCommands<?, ?>);
	}

	@Override
	public boolean isOpen() {
		if (this.commands instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection().isOpen();
		}
		if (this.commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return cluster.getStatefulConnection().isOpen();
		}
		return true;
	}

	@Override
	public boolean sendsAsynchronously() {
		return true;
	}

	private long await(CompletableFuture<Long> reply, long deadlineNanos) {
		Long result = awaitFor(reply, Math.min(this.timeoutNanos, deadlineNanos - System.nanoTime()));
		if (result == null) {
			throw new IllegalStateException("Redis returned no reply to a lock script");
		}
		return result;
	}

	/**
	 * Waits for a reply at most {@code nanos}; a reply that does not come in time is
	 * cancelled, which Lettuce turns into skipping its answer when it arrives (the
	 * command may still run on the server: its outcome is unknown).
	 */
	private static <T> @Nullable T awaitFor(CompletableFuture<T> reply, long nanos) {
		try {
			return reply.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RedisNoScriptException noScript) {
				throw noScript;
			}
			throw translate(cause);
		}
		catch (TimeoutException ex) {
			reply.cancel(true);
			throw new QueryTimeoutException(
					"Redis gave no reply within " + TimeUnit.NANOSECONDS.toMillis(Math.max(0, nanos)) + " ms");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			reply.cancel(true);
			throw translate(new RedisCommandInterruptedException(ex));
		}
		catch (CancellationException ex) {
			throw translate(new RedisCommandInterruptedException(ex));
		}
	}

	private static RuntimeException translate(@Nullable Throwable failure) {
		if (failure instanceof Exception ex) {
			DataAccessException translated = EXCEPTIONS.convert(ex);
			if (translated != null) {
				return translated;
			}
			return (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
		}
		if (failure instanceof Error error) {
			throw error;
		}
		return new IllegalStateException("Lock script failed", failure);
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
