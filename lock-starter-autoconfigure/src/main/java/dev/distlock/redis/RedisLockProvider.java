package dev.distlock.redis;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.ReleaseSubscription;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.core.spi.TryOnceLockProvider;
import dev.distlock.redis.RedisArgs.Millis;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

import static dev.distlock.redis.RedisArgs.bytes;
import static dev.distlock.redis.RedisArgs.digits;
import static dev.distlock.redis.RedisArgs.millis;

/**
 * The Redis backend, named {@code redis}, on Spring Data Redis: any
 * {@link RedisConnectionFactory} (Lettuce, Jedis or Redisson's), standalone, Sentinel or
 * Cluster (all keys of a lock share one hash tag, see {@link RedisLockKeys}). Every lock
 * type; every acquire, renewal and release is one Lua script and one round trip, and
 * leases run on the Redis server's clock. A FAIR waiter's place times out
 * {@link #setWaiterTimeout waiter timeout} after its last attempt; waiting writers hold
 * back new readers ({@link #setWriterPreference}). Every call ends by a deadline whatever
 * the client's timeouts: an acquisition's by its wait plus the {@link #setCallTimeout
 * call timeout}, any other within the call timeout
 * ({@link #setReleaseMode(RedisReleaseMode) RedisReleaseMode.ASYNC} lets a release return
 * once written). Fencing tokens strictly increase per key, also after the counter is
 * lost, while the server clock does not step back ({@link #setFenceRetention fence
 * retention}). With asynchronous replication a failover can lose a granted lock, so two
 * holders may overlap: fencing tokens are how a resource detects that. See docs/redis.md.
 *
 * @since 0.1.0
 */
public final class RedisLockProvider implements TryOnceLockProvider<RedisHeldLock>, InitializingBean {

	/** Default of {@link #setCallTimeout(Duration)}. */
	public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(1);

	/** Default of {@link #setWaiterTimeout(Duration)}. */
	public static final Duration DEFAULT_WAITER_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Default of {@link #setFenceRetention(Duration)}: an hour, several times the largest
	 * step an NTP daemon makes to a running clock (ntpd refuses offsets over 1000 s), at
	 * a cost of one counter (about 150 bytes) per key locked in the last hour.
	 */
	public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofHours(1);

	private static final Log logger = LogFactory.getLog(RedisLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	private final RedisLockSession session;

	private final RedisLockCalls calls;

	private final LongAdder failedReleases = new LongAdder();

	private volatile RedisReleaseMode releaseMode = RedisReleaseMode.SYNC;

	private volatile Duration callTimeout = DEFAULT_CALL_TIMEOUT;

	private volatile Duration waiterTimeout = DEFAULT_WAITER_TIMEOUT;

	private volatile Millis waiterTimeoutMillis = Millis.of(DEFAULT_WAITER_TIMEOUT);

	private volatile Duration fenceRetention = DEFAULT_FENCE_RETENTION;

	private volatile Millis retention = Millis.of(DEFAULT_FENCE_RETENTION);

	private volatile boolean writerPreference = true;

	private volatile int waitForReplicas;

	private volatile Duration replicaTimeout = Duration.ofMillis(100);

	/**
	 * The last lease sent and its digits, so that a steady lease is not formatted on
	 * every call.
	 */
	private volatile Millis lastLease = Millis.of(-1);

	/**
	 * Creates a provider on the connection factory; it opens no connection until
	 * {@link #afterPropertiesSet()} or its first use.
	 * @param connectionFactory the connections to Redis
	 */
	public RedisLockProvider(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		this.session = new RedisLockSession(connectionFactory, DEFAULT_CALL_TIMEOUT);
		this.calls = new RedisLockCalls(this.session);
	}

	/**
	 * Sets how long a release, a renewal or a health check may wait for Redis
	 * ({@code distlock.call-timeout}), and how long a waiter waits for its release
	 * channel to be confirmed; an acquisition's calls end by its wait's deadline plus
	 * this. Holds whatever the client's own timeouts are; a shorter client timeout still
	 * applies. Default {@link #DEFAULT_CALL_TIMEOUT}.
	 * @param callTimeout the call timeout
	 */
	public void setCallTimeout(Duration callTimeout) {
		Assert.isTrue(callTimeout.toMillis() > 0, "Call timeout must be at least 1 ms");
		this.callTimeout = callTimeout;
		this.session.setCallTimeout(callTimeout);
	}

	/**
	 * How long a release, a renewal or a health check may wait for Redis.
	 * @return the call timeout
	 */
	public Duration getCallTimeout() {
		return this.callTimeout;
	}

	/**
	 * Starts opening the provider's connection in the background and returns at once, so
	 * that the first lock call does not wait for it: a call waits for a connection only
	 * until its own deadline ({@code waitTime} plus {@code distlock.call-timeout}), and a
	 * connection made on a call's behalf (Lettuce's connect and handshake, on a cold JVM)
	 * can take longer than that. Spring calls this once the provider bean is configured;
	 * without Spring, call it after the setters. If Redis cannot be reached, the next
	 * call tries again.
	 * @throws IllegalStateException if the provider is closed
	 */
	@Override
	public void afterPropertiesSet() {
		this.session.connectInBackground();
	}

	/**
	 * Sets how long a FAIR waiter's queue place, or a waiting writer's hold on new
	 * readers, outlives its last attempt. Waiters attempt at least every
	 * {@code distlock.wait.fallback-poll}, so keep this several times longer; a waiter
	 * that died blocks the others at most this long. Default
	 * {@link #DEFAULT_WAITER_TIMEOUT}.
	 * @param waiterTimeout the timeout
	 */
	public void setWaiterTimeout(Duration waiterTimeout) {
		Assert.isTrue(waiterTimeout.toMillis() > 0, "Waiter timeout must be at least 1 ms");
		this.waiterTimeout = waiterTimeout;
		this.waiterTimeoutMillis = Millis.of(waiterTimeout);
	}

	/**
	 * How long a FAIR waiter's queue place, or a waiting writer's hold on new readers,
	 * outlives its last attempt.
	 * @return the waiter timeout
	 */
	public Duration getWaiterTimeout() {
		return this.waiterTimeout;
	}

	/**
	 * Sets how long the fencing counter of a key is kept after its last grant (at least
	 * the grant's lease). Tokens are {@code max(counter + 1, server time in µs)}, so
	 * after the counter expires they keep increasing unless the server clock stepped back
	 * further than this; every key locked within the retention costs one counter in
	 * memory. Default {@link #DEFAULT_FENCE_RETENTION}.
	 * @param fenceRetention the retention
	 */
	public void setFenceRetention(Duration fenceRetention) {
		Assert.isTrue(fenceRetention.toMillis() > 0, "Fence retention must be at least 1 ms");
		this.fenceRetention = fenceRetention;
		this.retention = Millis.of(fenceRetention);
	}

	/**
	 * How long the fencing counter of a key is kept after its last grant.
	 * @return the fence retention
	 */
	public Duration getFenceRetention() {
		return this.fenceRetention;
	}

	/**
	 * Sets whether writers waiting for readers to leave hold back new readers, so that a
	 * steady stream of readers cannot starve them. Default {@code true}.
	 * @param writerPreference whether waiting writers go first
	 */
	public void setWriterPreference(boolean writerPreference) {
		this.writerPreference = writerPreference;
	}

	/**
	 * Whether writers waiting for readers to leave hold back new readers.
	 * @return whether waiting writers go first
	 */
	public boolean isWriterPreference() {
		return this.writerPreference;
	}

	/**
	 * Sets whether a release waits for Redis' reply. Default
	 * {@link RedisReleaseMode#SYNC}.
	 * @param releaseMode the release mode
	 */
	public void setReleaseMode(RedisReleaseMode releaseMode) {
		Assert.notNull(releaseMode, "ReleaseMode must not be null");
		this.releaseMode = releaseMode;
	}

	/**
	 * Whether a release waits for Redis' reply.
	 * @return the release mode
	 */
	public RedisReleaseMode getReleaseMode() {
		return this.releaseMode;
	}

	/**
	 * Sets how many replicas must have the lock before an acquisition counts as granted
	 * ({@code WAIT} after the acquire script, on the same connection): with asynchronous
	 * replication a failover can otherwise promote a replica that never saw the lock. A
	 * grant that fewer replicas acknowledged within the timeout is given up (and cleaned
	 * up) as a failed acquisition. Standalone and Sentinel through Lettuce only. Default
	 * 0 (do not wait).
	 * @param replicas replicas that must acknowledge each grant
	 * @param timeout how long to wait for them
	 */
	public void setWaitForReplicas(int replicas, Duration timeout) {
		Assert.isTrue(replicas >= 0, "Replicas to wait for must not be negative");
		Assert.isTrue(timeout.toMillis() > 0, "Replica timeout must be at least 1 ms");
		this.waitForReplicas = replicas;
		this.replicaTimeout = timeout;
	}

	/**
	 * How many replicas must acknowledge each grant.
	 * @return the replicas, 0 for none
	 */
	public int getWaitForReplicas() {
		return this.waitForReplicas;
	}

	/**
	 * Releases that failed or got no reply within the call timeout (each is logged); the
	 * lease of each bounded how long its lock stayed taken.
	 * @return the number of failed releases since start
	 */
	public long failedReleases() {
		return this.failedReleases.sum();
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	@Override
	public AttemptOutcome<RedisHeldLock> tryAcquire(LockAttempt attempt) {
		RedisLockKeys keys = RedisLockKeys.of(attempt.key(), attempt.type());
		byte[] owner = bytes(attempt.owner());
		long leaseMillis = millis(attempt.lease());
		byte[] lease = leaseDigits(leaseMillis);
		Millis fenceRetention = this.retention;
		byte[] retention = (leaseMillis <= fenceRetention.value()) ? fenceRetention.digits() : lease;
		long result = this.calls.acquire(attempt, keys, owner, lease, retention, this.waiterTimeoutMillis.digits(),
				this.writerPreference);
		if (result > 0) {
			int replicas = this.waitForReplicas;
			if (replicas > 0) {
				long deadline = this.session.attemptDeadline(attempt);
				long acknowledged = this.session.runner(deadline)
					.waitForReplicas(replicas, this.replicaTimeout, deadline);
				if (acknowledged < replicas) {
					// the core gives the attempt up and releases what it may hold
					throw new IllegalStateException("Lock '" + attempt.key() + "' reached " + acknowledged + " of "
							+ replicas + " replicas within " + this.replicaTimeout);
				}
			}
			return AttemptOutcome.acquired(new RedisHeldLock(attempt, keys, result));
		}
		return AttemptOutcome.busy((result < 0) ? Duration.ofMillis(-result) : null);
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) {
		return subscribe(attempt, this.waiterTimeout, listener);
	}

	/**
	 * Registers the waiter in the lock's wake-up set for as long as it waits (so releases
	 * publish), then listens on the lock's channel; closing the subscription leaves both.
	 * If Redis cannot register it, the waiter polls.
	 */
	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Duration waitLeft, Runnable listener) {
		return this.session.subscribe(attempt, waitLeft, listener);
	}

	@Override
	public boolean renew(RedisHeldLock held, Duration lease) {
		return this.calls.renew(held, digits(millis(lease)), this.session.callDeadline());
	}

	/**
	 * Renews many leases in one round trip per Redis node: the owner-checked renewal
	 * scripts written back to back on one connection (pipelined through
	 * {@code RedisTemplate} for other drivers), all answered within the call timeout.
	 * Each lease stands on its own reply: one that failed (a shard down, an error) fails
	 * that lease only.
	 */
	@Override
	public RenewalOutcome[] renewAll(List<RedisHeldLock> locks, Duration lease) {
		return this.calls.renewAll(locks, digits(millis(lease)), this.session.callDeadline());
	}

	@Override
	public void release(RedisHeldLock held) {
		release(held, () -> {
		});
	}

	/**
	 * Sends the owner-checked release and runs {@code sent} once it is written to the
	 * connection: this JVM's next request (the next local waiter's acquire) is served
	 * after it. With {@link RedisReleaseMode#ASYNC} the call returns then; otherwise it
	 * waits for the reply, at most the call timeout. A release that fails or gets no
	 * reply in time is counted ({@link #failedReleases()}); its lock frees itself when
	 * its lease ends.
	 */
	@Override
	public void release(RedisHeldLock held, Runnable sent) {
		try {
			this.calls.release(held, sent, this.releaseMode == RedisReleaseMode.ASYNC, this.session.callDeadline(),
					(failure) -> asyncReleaseFailed(held, failure));
		}
		catch (RuntimeException ex) {
			// the core logs it
			this.failedReleases.increment();
			throw ex;
		}
	}

	private void asyncReleaseFailed(RedisHeldLock held, Throwable failure) {
		this.failedReleases.increment();
		logger.warn(
				"Asynchronous release of " + held.attempt() + " failed; the lock stays taken until its lease " + "ends",
				failure);
	}

	/**
	 * Releases whatever the attempt may hold (its reply may have been lost) and takes it
	 * out of the FAIR queue or the waiting writers, in one script, sent without waiting
	 * for the reply. On Lettuce's connection it follows the attempt's own request, so a
	 * grant that reaches Redis late (a network that held it back) is released too.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
		long leaseNanos = TimeUnit.MILLISECONDS.toNanos(millis(attempt.lease()));
		abandon(attempt, System.nanoTime() + leaseNanos, 0);
	}

	/**
	 * Through {@code RedisTemplate} nothing orders the clean-up after the attempt's own
	 * request, which a silent network may hold back and deliver later (on another
	 * connection): there the clean-up is sent again every call timeout, until it was
	 * answered twice, so that the second answer comes after the first (and after what the
	 * network held back with it), or until the attempt's lease has passed.
	 */
	private void abandon(LockAttempt attempt, long until, int answered) {
		try {
			this.calls.abandon(attempt, this.session.callDeadline(), (failure) -> {
				if (failure != null) {
					abandonFailed(attempt, failure);
				}
				int answers = (failure != null) ? answered : answered + 1;
				if (!this.session.sendsInOrder() && answers < 2 && System.nanoTime() - until < 0) {
					CompletableFuture.delayedExecutor(this.callTimeout.toMillis(), TimeUnit.MILLISECONDS)
						.execute(() -> abandon(attempt, until, answers));
				}
			});
		}
		catch (RuntimeException ex) {
			abandonFailed(attempt, ex);
		}
	}

	private static void abandonFailed(LockAttempt attempt, Throwable failure) {
		if (logger.isDebugEnabled()) {
			logger.debug("Could not clean up after " + attempt + "; its lease or queue place ends on its own", failure);
		}
	}

	/**
	 * Stops the shared subscription and lets go of the connection. Locks still held stay
	 * held until their leases end.
	 */
	@Override
	public void close() {
		this.session.close();
	}

	/**
	 * Whether release notices travel over sharded pub/sub
	 * ({@code SSUBSCRIBE}/{@code SPUBLISH}).
	 * @return {@code true} on a Redis 7+ Cluster through Lettuce, once the provider
	 * connected
	 */
	boolean usesShardedPubSub() {
		return this.session.usesShardedPubSub();
	}

	private byte[] leaseDigits(long millis) {
		Millis last = this.lastLease;
		if (last.value() != millis) {
			last = Millis.of(millis);
			this.lastLease = last;
		}
		return last.digits();
	}

	/**
	 * Health check for indicators and the locks endpoint: a script that reads the
	 * server's version and writes nothing (no lock, no fencing counter), on the
	 * connection the locks use, answered within the call timeout.
	 * @param probe unused: the check touches no key
	 */
	@Override
	public void checkHealth(LockAttempt probe) {
		this.calls.serverVersion(this.session.callDeadline());
	}

}
