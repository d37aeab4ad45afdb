package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Runs the backend's Lua scripts, one round trip each: {@link LettuceScriptRunner} on
 * Lettuce's own shared connection, {@link TemplateScriptRunner} through
 * {@code RedisTemplate} for every other driver. Keys and arguments are bytes; every
 * script returns an integer.
 * <p>
 * Every call that waits for a reply takes a deadline on the {@link System#nanoTime()}
 * scale and returns or throws by then, whatever the client's own timeouts are (a shorter
 * client timeout still applies); a call cut off there throws
 * {@link org.springframework.dao.QueryTimeoutException} and its outcome is unknown.
 */
interface ScriptRunner extends AutoCloseable {

	/** What {@link #run} calls before a request when nothing needs to know. */
	Runnable NOTHING = () -> {
	};

	/**
	 * Runs a script and waits for its reply until the deadline.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param deadlineNanos when to give up waiting
	 * @param sending called right before each request that may run the script
	 * ({@code EVALSHA}, then {@code EVAL} after {@code NOSCRIPT}), once the connection
	 * exists
	 * @return its integer reply
	 * @throws org.springframework.dao.DataAccessException if Redis failed or did not
	 * answer in time
	 */
	long run(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos, Runnable sending);

	/**
	 * Runs a script and waits for its reply until the deadline.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param deadlineNanos when to give up waiting
	 * @return its integer reply
	 * @throws org.springframework.dao.DataAccessException if Redis failed or did not
	 * answer in time
	 */
	default long run(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos) {
		return run(script, keys, args, deadlineNanos, NOTHING);
	}

	/**
	 * Sends a script; its reply completes the returned future. A later script on this
	 * runner is served after it. Runners without an asynchronous connection run it until
	 * the deadline first.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param deadlineNanos when a runner that waits gives up
	 * @return the reply to come
	 */
	CompletableFuture<Long> start(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos);

	/**
	 * Waits for the reply of a {@link #start started} script until the deadline; a server
	 * that did not know the script gets its text and is waited for in turn.
	 * @param reply the started script's reply
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param deadlineNanos when to give up waiting
	 * @return its integer reply
	 * @throws org.springframework.dao.DataAccessException if Redis failed or did not
	 * answer in time
	 */
	long await(CompletableFuture<Long> reply, LockScript script, byte[][] keys, byte[][] args, long deadlineNanos);

	/**
	 * Sends a script without waiting for its reply. On an {@link #sendsAsynchronously()
	 * asynchronous} connection commands stay ordered, so a later script is served after
	 * this one; other runners run it on a thread of their own, ordered before nothing.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param deadlineNanos when a runner that waits gives up
	 * @param onDone called (on any thread) once the script was answered, with
	 * {@code null}, or with why it failed or got no reply
	 */
	void send(LockScript script, byte[][] keys, byte[][] args, long deadlineNanos,
			Consumer<@Nullable Throwable> onDone);

	/**
	 * Runs one script for many key sets in as few round trips as the connection allows
	 * (one, pipelined, on one node), waiting for the replies until the deadline. Each
	 * call stands on its own reply: one that failed does not fail the others.
	 * @param script the script
	 * @param keys the keys of each call
	 * @param args the arguments of each call
	 * @param deadlineNanos when to give up waiting
	 * @return each call's reply, in order
	 */
	Reply[] runAll(LockScript script, List<byte[][]> keys, List<byte[][]> args, long deadlineNanos);

	/**
	 * Waits until the writes this connection sent so far reached {@code replicas}
	 * replicas ({@code WAIT}), at most {@code timeout} and never past the deadline.
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long to wait for them
	 * @param deadlineNanos when to give up waiting for the reply
	 * @return how many replicas acknowledged
	 * @throws UnsupportedOperationException if the connection cannot tell (a cluster
	 * connection, which sends {@code WAIT} to an arbitrary node, or a pooled one, whose
	 * next command may use another connection)
	 */
	long waitForReplicas(int replicas, Duration timeout, long deadlineNanos);

	/**
	 * Whether {@link #send} returns before the reply, ordered on one connection before
	 * every later call.
	 * @return {@code true} for an asynchronous connection
	 */
	boolean sendsAsynchronously();

	/**
	 * Whether the connection may be a Redis Cluster one, where the keys of one script
	 * must hash to one slot; a runner that cannot tell says {@code true}.
	 * @return {@code false} only on a standalone or Sentinel connection
	 */
	default boolean mayBeCluster() {
		return true;
	}

	/**
	 * Whether the connection can still be used; a runner whose connection was closed
	 * under it is replaced.
	 * @return {@code false} once the connection is closed for good
	 */
	default boolean isOpen() {
		return true;
	}

	@Override
	void close();

	/**
	 * The answer to one call of a batch: its integer reply, or why it failed (its outcome
	 * then unknown).
	 *
	 * @param value the reply, when it did not fail
	 * @param failure the failure, or {@code null}
	 */
	record Reply(long value, @Nullable RuntimeException failure) {

		static Reply failed(RuntimeException failure) {
			return new Reply(0, failure);
		}

	}

}
