package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * The {@code redisson} backend: distributed locks made of Redisson's own lock objects on
 * an application's {@link RedissonClient} (MUTEX, FAIR, READ/WRITE and a permit-expirable
 * SEMAPHORE, each type under its own keys, see {@link RedissonLockKeys}). A lease is
 * owned by a synthetic owner id, not by a thread, so any thread may release it; it is
 * counted from when the request that granted it was sent
 * ({@link LockAttempt#markSent()}), and {@link #renewAll} extends it only while its owner
 * still holds the lock. An acquisition's calls end by
 * {@link LockAttempt#deadlineNanos()}, every other call by the call timeout; a grant that
 * comes too late is released in the background ({@link #abandon}). A hold that begins
 * after another ended gets a larger fencing token, and every key this provider writes
 * expires (the counter {@link #setFenceRetention fence retention} after the key's last
 * grant). A custom Redisson {@code NameMapper} is not supported; a dead FAIR waiter holds
 * up its key for up to Redisson's {@code fairLockWaitTimeout}; permit expiry follows the
 * clients' wall clocks, so keep them synchronized. See docs/redisson.md.
 *
 * @since 0.1.0
 */
public final class RedissonLockProvider implements LockProvider<RedissonHeldLock> {

	/** The provider's name. */
	public static final String NAME = "redisson";

	/** Default of the call timeout: {@code distlock.call-timeout}'s default. */
	public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(1);

	/** Default of {@link #setFenceRetention(Duration)}. */
	public static final Duration DEFAULT_FENCE_RETENTION = RedissonLockScripts.DEFAULT_FENCE_RETENTION;

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	private final RedissonNode node;

	private final long callTimeoutNanos;

	private final PermitForm permits = new PermitForm();

	private final Map<LockAttempt, PendingAcquisition> pending = new ConcurrentHashMap<>();

	private volatile long fenceRetentionMillis = DEFAULT_FENCE_RETENTION.toMillis();

	/**
	 * Creates a provider with a {@link #DEFAULT_CALL_TIMEOUT call timeout} of 1 second.
	 * @param client the Redisson client
	 */
	public RedissonLockProvider(RedissonClient client) {
		this(client, DEFAULT_CALL_TIMEOUT);
	}

	/**
	 * Creates a provider.
	 * @param client the Redisson client
	 * @param callTimeout the longest one renewal, release or health check may take,
	 * whatever the client's own timeouts and retries ({@code distlock.call-timeout}); an
	 * acquisition's calls end by {@link LockAttempt#deadlineNanos()}
	 */
	public RedissonLockProvider(RedissonClient client, Duration callTimeout) {
		if (callTimeout.isNegative() || callTimeout.isZero()) {
			throw new IllegalArgumentException("Call timeout must be positive, not " + callTimeout);
		}
		this.node = new RedissonNode(client);
		this.callTimeoutNanos = callTimeout.toNanos();
	}

	/**
	 * Sets how long a key's fencing counter (and a semaphore nobody uses) is kept after
	 * its last grant or renewal; at least the lease of a lock that outlives it. Tokens
	 * stay above the server clock in microseconds, so a counter that is gone only matters
	 * if the server clock stepped back further than this since the key's last grant: keep
	 * it above any step back the server's clock may take; each key locked within it costs
	 * one small string in Redis (~90 bytes). Default {@link #DEFAULT_FENCE_RETENTION}.
	 * @param fenceRetention the retention, at least 1 ms
	 */
	public void setFenceRetention(Duration fenceRetention) {
		this.fenceRetentionMillis = RedissonLockScripts.retentionMillis(fenceRetention);
	}

	/**
	 * How long a fencing counter is kept after its key's last grant.
	 * @return the retention
	 */
	public Duration getFenceRetention() {
		return Duration.ofMillis(this.fenceRetentionMillis);
	}

	/**
	 * The longest one renewal, release or health check may take.
	 * @return the call timeout
	 */
	public Duration getCallTimeout() {
		return Duration.ofNanos(this.callTimeoutNanos);
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	/**
	 * Acquires with Redisson's own waiting (pub/sub on the lock's channel, the fair
	 * queue), up to the waiter's deadline; every Redis call it makes ends by the
	 * attempt's {@link LockAttempt#deadlineNanos() deadline}, however many calls the lock
	 * type needs.
	 */
	@Override
	public @Nullable RedissonHeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		long waitUntil = waiter.isTryOnce() ? System.nanoTime() : waiter.deadlineNanos();
		PendingAcquisition state = new PendingAcquisition(RedissonHeldLock.nextOwnerId(), waitUntil,
				attempt.deadlineNanos());
		RedissonLockForm form = form(attempt);
		PendingAcquisition previous = this.pending.put(attempt, state);
		if (previous != null) {
			form.abandon(this.node, attempt, previous);
		}
		RedissonHeldLock held = form.acquire(this.node, attempt, state, this.fenceRetentionMillis);
		// granted, or a definite "no" from Redisson, which then holds nothing for the
		// owner and has taken it out of the fair queue itself: nothing is left to
		// abandon; only a failure leaves the attempt pending
		this.pending.remove(attempt, state);
		return held;
	}

	@Override
	public boolean renew(RedissonHeldLock held, Duration lease) throws Exception {
		return RedissonNode.renewed(renewAll(List.of(held), lease)[0]);
	}

	/**
	 * Sends every renewal at once and waits for their replies until one call timeout from
	 * now: each lease stands or falls on its own reply.
	 */
	@Override
	public RenewalOutcome[] renewAll(List<RedissonHeldLock> locks, Duration lease) {
		long leaseMillis = RedissonLockScripts.millis(lease);
		long deadline = callDeadline();
		List<CompletableFuture<Long>> replies = new ArrayList<>(locks.size());
		for (RedissonHeldLock held : locks) {
			replies.add(form(held.attempt()).renew(this.node, held, leaseMillis, this.fenceRetentionMillis));
		}
		RenewalOutcome[] outcomes = new RenewalOutcome[locks.size()];
		for (int i = 0; i < outcomes.length; i++) {
			try {
				Long reply = RedissonNode.await(replies.get(i), deadline);
				outcomes[i] = RenewalOutcome.of(reply != null && reply == 1L);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				outcomes[i] = RenewalOutcome.failed(ex);
			}
			catch (Exception ex) {
				outcomes[i] = RenewalOutcome.failed(ex);
			}
		}
		return outcomes;
	}

	/**
	 * Releases if the owner still holds the lock; no longer held is a no-op. Ends within
	 * the call timeout; a release whose outcome stays unknown (no answer, the client gave
	 * up) is sent again in the background until Redis answers, so the lock frees once
	 * Redis can be reached again rather than at its lease end.
	 */
	@Override
	public void release(RedissonHeldLock held) throws Exception {
		RedissonLockForm form = form(held.attempt());
		CompletableFuture<Boolean> reply = form.release(this.node, held);
		reply.whenComplete((freed, ex) -> {
			if (ex != null && !RedissonNode.neverSent(ex)) {
				this.node.releaseUnknown(() -> form.release(this.node, held), System.nanoTime()
						+ TimeUnit.MILLISECONDS.toNanos(RedissonLockScripts.leaseMillis(held.attempt())), held);
			}
		});
		RedissonNode.await(reply, callDeadline());
	}

	/**
	 * Releases whatever the attempt's owner id may hold (owner-checked, so never
	 * another's lock) and leaves the fair queue, in the background and again until a
	 * grant still on its way is surely released: a reply that came too late or not at all
	 * leaves nothing held once Redis answers again. If Redisson is still working on the
	 * attempt (a wait that outlives an interrupt, a slow reply), its future is cancelled:
	 * Redisson then stops waiting and itself releases a grant that reaches it after that.
	 * A SEMAPHORE permit whose reply never arrives cannot be named, and stays taken until
	 * its lease ends.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
		PendingAcquisition state = this.pending.remove(attempt);
		if (state != null) {
			form(attempt).abandon(this.node, attempt, state);
		}
	}

	/**
	 * Health check for indicators and the locks endpoint: an {@code EXISTS} on the
	 * probe's key, which writes nothing, bounded by the call timeout.
	 * @param probe the probe; only its key is read
	 */
	@Override
	public void checkHealth(LockAttempt probe) throws Exception {
		RedissonNode.await(this.node.probe(probe.key()), callDeadline());
	}

	private RedissonLockForm form(LockAttempt attempt) {
		return (attempt.type() == LockType.SEMAPHORE) ? this.permits : HashLockForm.of(attempt.type());
	}

	private long callDeadline() {
		return System.nanoTime() + this.callTimeoutNanos;
	}

}
