package dev.distlock.redisson;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * One call on every node of a quorum, sent to all at once and decided as soon as its
 * outcome is known: a majority said yes, so many said no or failed that a majority no
 * longer can, or every node answered. Each reply counts only if it comes by the round's
 * deadline; a node that has not answered by then counts as failed. This is the one way
 * {@link RedissonQuorumLockProvider} waits for its nodes: acquiring, raising fences,
 * renewing, releasing, health.
 *
 * @param <T> the reply's type
 */
final class QuorumRound<T> {

	private final int size;

	private final int majority;

	private final long deadlineNanos;

	private final Predicate<@Nullable T> yes;

	private final List<CompletableFuture<T>> replies;

	private final CompletableFuture<Void> decided = new CompletableFuture<>();

	private final Map<Integer, T> granted = new HashMap<>();

	private int no;

	private int failures;

	private boolean closed;

	private @Nullable Throwable firstFailure;

	private QuorumRound(int size, int majority, long deadlineNanos, Predicate<@Nullable T> yes) {
		this.size = size;
		this.majority = majority;
		this.deadlineNanos = deadlineNanos;
		this.yes = yes;
		this.replies = new ArrayList<>(size);
	}

	/**
	 * Sends one call to every node.
	 * @param size how many nodes
	 * @param majority how many must say yes
	 * @param deadlineNanos when replies stop counting ({@link System#nanoTime()})
	 * @param call the call on the node of an index; must not throw
	 * @param yes which replies count as yes
	 * @return the round, not yet decided
	 */
	static <T> QuorumRound<T> ask(int size, int majority, long deadlineNanos, IntFunction<CompletableFuture<T>> call,
			Predicate<@Nullable T> yes) {
		QuorumRound<T> round = new QuorumRound<>(size, majority, deadlineNanos, yes);
		for (int i = 0; i < size; i++) {
			int index = i;
			CompletableFuture<T> reply = call.apply(index);
			round.replies.add(reply);
			RedissonNode.until(reply, deadlineNanos).whenComplete((value, ex) -> round.reply(index, value, ex));
		}
		return round;
	}

	private synchronized void reply(int index, @Nullable T value, @Nullable Throwable ex) {
		if (this.closed) {
			return;
		}
		if (ex != null) {
			this.failures++;
			if (this.firstFailure == null) {
				this.firstFailure = RedissonNode.unwrap(ex);
			}
		}
		else if (this.yes.test(value)) {
			this.granted.put(index, value);
		}
		else {
			this.no++;
		}
		if (this.granted.size() >= this.majority || this.no + this.failures > this.size - this.majority
				|| this.granted.size() + this.no + this.failures == this.size) {
			this.decided.complete(null);
		}
	}

	/**
	 * Waits until the round is decided, at most until its deadline.
	 * @return this round
	 * @throws InterruptedException if the waiting thread was interrupted
	 */
	QuorumRound<T> await() throws InterruptedException {
		try {
			this.decided.get(Math.max(0, this.deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			close();
		}
		return this;
	}

	/**
	 * Undecided at the deadline: the nodes that did not answer count as failed, and later
	 * answers not at all.
	 */
	private synchronized void close() {
		if (!this.decided.isDone()) {
			this.closed = true;
			this.failures = this.size - this.granted.size() - this.no;
			this.decided.complete(null);
		}
	}

	/** Whether a majority said yes. */
	synchronized boolean isGranted() {
		return this.granted.size() >= this.majority;
	}

	/**
	 * Whether so many nodes said no that a majority cannot say yes, whatever the others
	 * answer.
	 */
	synchronized boolean isRefused() {
		return this.no > this.size - this.majority;
	}

	/** The yes replies so far, by node index. */
	synchronized Map<Integer, T> granted() {
		return new HashMap<>(this.granted);
	}

	/** How many nodes failed, and once the deadline passed undecided, did not answer. */
	synchronized int failed() {
		return this.failures;
	}

	synchronized @Nullable Throwable firstFailure() {
		return this.firstFailure;
	}

	/**
	 * The reply of one node as the client delivers it, also after the round's deadline.
	 * @param index the node's index
	 * @return the reply
	 */
	CompletableFuture<T> reply(int index) {
		return this.replies.get(index);
	}

}
