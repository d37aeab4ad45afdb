package dev.distlock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * Runs scripts through Spring Data Redis' {@link RedisTemplate}, for any driver (Jedis, Redisson's connection
 * factory): its script executor sends {@code EVALSHA} and falls back to {@code EVAL} on {@code NOSCRIPT}. Batches are
 * pipelined where the connection can (not on a cluster connection); {@link #send} waits for the reply.
 */
final class TemplateScriptRunner implements ScriptRunner {

	private final RedisTemplate<byte[], byte[]> redis = new RedisTemplate<>();

	TemplateScriptRunner(RedisConnectionFactory connectionFactory) {
		this.redis.setConnectionFactory(connectionFactory);
		this.redis.setEnableDefaultSerializer(false);
		this.redis.setKeySerializer(RedisSerializer.byteArray());
		this.redis.setValueSerializer(RedisSerializer.byteArray());
		this.redis.afterPropertiesSet();
	}

	@Override
	public long run(LockScript script, byte[][] keys, byte[]... args) {
		Long result = this.redis.execute(script.redisScript(), Arrays.asList(keys), (Object[]) args);
		if (result == null) {
			throw new IllegalStateException("Redis returned no reply to a lock script (is it in a transaction or "
					+ "pipeline?)");
		}
		return result;
	}

	@Override
	public CompletableFuture<Long> start(LockScript script, byte[][] keys, byte[][] args) {
		try {
			return CompletableFuture.completedFuture(run(script, keys, args));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public long await(CompletableFuture<Long> reply, LockScript script, byte[][] keys, byte[][] args) {
		try {
			return reply.join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	@Override
	public void send(LockScript script, byte[][] keys, byte[][] args, Consumer<Throwable> onFailure) {
		try {
			run(script, keys, args);
		}
		catch (RuntimeException ex) {
			onFailure.accept(ex);
		}
	}

	/**
	 * Pipelines the calls on one connection; on a cluster connection (no pipelining across nodes) or when the
	 * pipeline fails as a whole (for example the script is not loaded yet after a restart), runs them one by one.
	 */
	@Override
	public long[] runAll(LockScript script, List<byte[][]> keys, List<byte[][]> args) {
		if (keys.size() > 1) {
			try {
				return pipelined(script, keys, args);
			}
			catch (RuntimeException ex) {
				// below, one by one, each with the NOSCRIPT fallback
			}
		}
		long[] results = new long[keys.size()];
		for (int i = 0; i < results.length; i++) {
			results[i] = run(script, keys.get(i), args.get(i));
		}
		return results;
	}

	private long[] pipelined(LockScript script, List<byte[][]> keys, List<byte[][]> args) {
		List<Object> replies = this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			for (int i = 0; i < keys.size(); i++) {
				byte[][] callKeys = keys.get(i);
				byte[][] callArgs = args.get(i);
				byte[][] keysAndArgs = Arrays.copyOf(callKeys, callKeys.length + callArgs.length);
				System.arraycopy(callArgs, 0, keysAndArgs, callKeys.length, callArgs.length);
				connection.scriptingCommands().evalSha(script.sha1(), ReturnType.INTEGER, callKeys.length,
						keysAndArgs);
			}
			return null;
		});
		long[] results = new long[replies.size()];
		for (int i = 0; i < results.length; i++) {
			Object reply = replies.get(i);
			if (!(reply instanceof Number number)) {
				throw new IllegalStateException("Script " + script + " failed in a pipeline: " + reply);
			}
			results[i] = number.longValue();
		}
		return results;
	}

	@Override
	public long waitForReplicas(int replicas, Duration timeout) {
		throw new UnsupportedOperationException("distlock.redis.wait-for-replicas needs a Lettuce connection factory: "
				+ "WAIT must run on the connection that granted the lock, which RedisTemplate does not promise");
	}

	@Override
	public boolean sendsAsynchronously() {
		return false;
	}

	@Override
	public void close() {
	}

}
