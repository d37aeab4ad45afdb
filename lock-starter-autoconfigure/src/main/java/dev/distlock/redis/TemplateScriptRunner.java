package dev.distlock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * Runs scripts through Spring Data Redis' {@link RedisTemplate}, for any driver (Jedis,
 * Redisson's connection factory): {@code EVALSHA}, and {@code EVAL} when the server
 * answers {@code NOSCRIPT}. Batches are pipelined where the connection can (not on a
 * cluster connection).
 * <p>
 * Such drivers block the calling thread until their own socket timeout (Jedis:
 * {@code spring.data.redis.timeout}, 2 s when unset), and a pooled connection may be
 * waited for besides. So that the caller's deadline holds whatever those are, every call
 * runs on one of at most {@value #MAX_CALL_THREADS} daemon threads and the caller waits
 * for it only until its deadline; the thread itself stays blocked until the driver gives
 * up. When all of them are blocked (a silent network), further calls fail at once.
 */
final class TemplateScriptRunner implements ScriptRunner {

	/** How many calls may be blocked in the driver at once. */
	static final int MAX_CALL_THREADS = 64;

	private final RedisTemplate<byte[], byte[]> redis = new RedisTemplate<>();

	private final ThreadPoolExecutor calls;

	TemplateScriptRunner(RedisConnectionFactory connectionFactory) {
		this.redis.setConnectionFactory(connectionFactory);
		this.redis.setEnableDefaultSerializer(false);
		this.redis.setKeySerializer(RedisSerializer.byteArray());
		this.redis.setValueSerializer(RedisSerializer.byteArray());
		this.redis.afterPropertiesSet();
		this.calls = RedisThreads.upTo(MAX_CALL_THREADS, "distlock-redis-call-");
	}

	@Override
	public long run(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos, Runnable sending) {
		return bounded(() -> execute(script, keys, args, sending), deadlineNanos);
	}

	/** On the calling thread, as long as the driver takes. */
	private long execute(LockScript script, byte[][] keys, byte[][] args, Runnable sending) {
		Long reply = this.redis.execute((RedisCallback<Long>) (connection) -> {
			RedisScriptingCommands scripting = connection;
			sending.run();
			try {
				return integer(script,
						scripting.evalSha(script.sha1(), ReturnType.INTEGER, keys.length, keysAndArgs(keys, args)));
			}
			catch (RuntimeException ex) {
				if (!isNoScript(ex)) {
					throw ex;
				}
				sending.run();
				return integer(script,
						scripting.eval(script.body(), ReturnType.INTEGER, keys.length, keysAndArgs(keys, args)));
			}
		});
		return integer(script, reply);
	}

	@Override
	public CompletableFuture<Long> start(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos) {
		try {
			return CompletableFuture.completedFuture(run(script, keys, args, deadlineNanos));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public long await(CompletableFuture<Long> reply, LockScript script, byte[][] keys, byte[][] args,
			long deadlineNanos) {
		// complete: start() waited for it
		try {
			return reply.join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/**
	 * Runs the script on a call thread and returns at once; unlike Lettuce's connection,
	 * nothing orders it before the caller's next call.
	 */
	@Override
	public void send(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos,
			Consumer<@Nullable Throwable> onDone) {
		try {
			CompletableFuture.runAsync(() -> execute(script, keys, args, NOTHING), this.calls)
				.whenComplete((result, failure) -> onDone
					.accept((failure != null && failure.getCause() != null) ? failure.getCause() : failure));
		}
		catch (RejectedExecutionException ex) {
			onDone.accept(ex);
		}
	}

	/**
	 * Pipelines the calls on one connection; each failed call of the pipeline (and every
	 * call, on a cluster connection, which cannot pipeline across nodes) runs again on
	 * its own, with the {@code NOSCRIPT} fallback.
	 */
	@Override
	public Reply[] runAll(LockScript script, List<byte[][]> keys, List<byte[][]> args, long deadlineNanos) {
		try {
			return bounded(() -> {
				List<Object> pipelined = pipelined(script, keys, args);
				Reply[] replies = new Reply[keys.size()];
				for (int i = 0; i < replies.length; i++) {
					Object reply = (pipelined != null) ? pipelined.get(i) : null;
					replies[i] = (reply instanceof Number number) ? new Reply(number.longValue(), null)
							: runAlone(script, keys.get(i), args.get(i), deadlineNanos);
				}
				return replies;
			}, deadlineNanos);
		}
		catch (RuntimeException ex) {
			// no reply at all: every call's outcome is unknown
			Reply[] replies = new Reply[keys.size()];
			Arrays.fill(replies, Reply.failed(ex));
			return replies;
		}
	}

	/**
	 * The pipeline's replies (a failed call's as its exception), or {@code null} if it
	 * could not run.
	 */
	private @Nullable List<Object> pipelined(LockScript script, List<byte[][]> keys, List<byte[][]> args) {
		if (keys.size() < 2) {
			return null;
		}
		try {
			return this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
				RedisScriptingCommands scripting = connection;
				for (int i = 0; i < keys.size(); i++) {
					scripting.evalSha(script.sha1(), ReturnType.INTEGER, keys.get(i).length,
							keysAndArgs(keys.get(i), args.get(i)));
				}
				return null;
			});
		}
		catch (RedisPipelineException ex) {
			return ex.getPipelineResult();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private Reply runAlone(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos) {
		try {
			return new Reply(run(script, keys, args, deadlineNanos), null);
		}
		catch (RuntimeException ex) {
			return Reply.failed(ex);
		}
	}

	@Override
	public long waitForReplicas(int replicas, Duration timeout, long deadlineNanos) {
		throw new UnsupportedOperationException("distlock.redis.wait-for-replicas needs a Lettuce connection factory: "
				+ "WAIT must run on the connection that granted the lock, which RedisTemplate does not promise");
	}

	@Override
	public boolean sendsAsynchronously() {
		return false;
	}

	@Override
	public void close() {
		this.calls.shutdown();
	}

	/** Runs the call on a call thread and waits for it until the deadline. */
	private <T> T bounded(Supplier<T> call, long deadlineNanos) {
		long left = deadlineNanos - System.nanoTime();
		if (left <= 0) {
			throw new QueryTimeoutException("No time left for a Redis call");
		}
		CompletableFuture<T> result;
		try {
			result = CompletableFuture.supplyAsync(call, this.calls);
		}
		catch (RejectedExecutionException ex) {
			throw new QueryTimeoutException("No Redis call thread free: all " + MAX_CALL_THREADS + " wait for the "
					+ "driver (Redis does not answer), or the provider is closed", ex);
		}
		try {
			return result.get(left, TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new QueryTimeoutException(
					"Redis gave no reply within " + TimeUnit.NANOSECONDS.toMillis(left) + " ms");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new QueryTimeoutException("Interrupted while waiting for Redis", ex);
		}
	}

	private static long integer(LockScript script, @Nullable Object reply) {
		if (!(reply instanceof Number number)) {
			throw new IllegalStateException(
					"Redis returned no integer to " + script + " (is it in a transaction or " + "pipeline?): " + reply);
		}
		return number.longValue();
	}

	private static byte[][] keysAndArgs(byte[][] keys, byte[][] args) {
		byte[][] keysAndArgs = Arrays.copyOf(keys, keys.length + args.length);
		System.arraycopy(args, 0, keysAndArgs, keys.length, args.length);
		return keysAndArgs;
	}

	private static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

}
