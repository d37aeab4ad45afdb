package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Runs the backend's Lua scripts, one round trip each: {@link LettuceScriptRunner} on Lettuce's own shared
 * connection, {@link TemplateScriptRunner} through {@code RedisTemplate} for every other driver. Keys and arguments are
 * bytes; every script returns an integer.
 */
interface ScriptRunner extends AutoCloseable {

	/**
	 * Runs a script and waits for its reply, at most the client's command timeout.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return its integer reply
	 * @throws org.springframework.dao.DataAccessException if Redis failed or did not answer in time
	 */
	long run(LockScript script, byte[][] keys, byte[]... args);

	/**
	 * Sends a script; its reply completes the returned future. A later script on this runner is served after it.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return the reply to come
	 */
	CompletableFuture<Long> start(LockScript script, byte[][] keys, byte[][] args);

	/**
	 * Waits for the reply of a {@link #start started} script, at most the client's command timeout; a server that
	 * did not know the script gets its text and is waited for in turn.
	 * @param reply the started script's reply
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return its integer reply
	 * @throws org.springframework.dao.DataAccessException if Redis failed or did not answer in time
	 */
	long await(CompletableFuture<Long> reply, LockScript script, byte[][] keys, byte[][] args);

	/**
	 * Sends a script without waiting for its reply. Commands stay ordered on the connection, so a later script on the
	 * same connection is served after this one. Runners without an asynchronous connection run it and wait.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param onFailure called (on any thread) if the script failed or got no reply
	 */
	void send(LockScript script, byte[][] keys, byte[][] args, Consumer<Throwable> onFailure);

	/**
	 * Runs one script for many key sets in as few round trips as the connection allows (one, pipelined, on one node).
	 * @param script the script
	 * @param keys the keys of each call
	 * @param args the arguments of each call
	 * @return each call's reply, in order
	 * @throws org.springframework.dao.DataAccessException if Redis failed
	 */
	long[] runAll(LockScript script, List<byte[][]> keys, List<byte[][]> args);

	/**
	 * Waits until the writes this connection sent so far reached {@code replicas} replicas ({@code WAIT}), at most
	 * {@code timeout}.
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long to wait for them
	 * @return how many replicas acknowledged
	 * @throws UnsupportedOperationException if the connection cannot tell (a cluster connection, which sends
	 * {@code WAIT} to an arbitrary node, or a pooled one, whose next command may use another connection)
	 */
	long waitForReplicas(int replicas, Duration timeout);

	/**
	 * Whether {@link #send} returns before the reply.
	 * @return {@code true} for an asynchronous connection
	 */
	boolean sendsAsynchronously();

	/**
	 * Whether the connection can still be used; a runner whose connection was closed under it is replaced.
	 * @return {@code false} once the connection is closed for good
	 */
	default boolean isOpen() {
		return true;
	}

	@Override
	void close();

}
