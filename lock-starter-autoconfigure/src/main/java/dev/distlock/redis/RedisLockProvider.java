package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import dev.distlock.core.Acquisition;
import dev.distlock.core.HeldLock;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.TryOnceLockProvider;
import dev.distlock.core.LockType;
import dev.distlock.core.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * The Redis backend, named {@code redis}, on Spring Data Redis: any {@link RedisConnectionFactory} (Lettuce or Jedis
 * from Spring Boot's {@code spring.data.redis.*}, or Redisson's), standalone, Sentinel or Cluster. Every lock type;
 * every acquire, renewal and release is one Lua script and one round trip (EVALSHA), and the acquire script returns
 * the fencing token, or the holder's remaining lease so waiters know when to look again.
 * <ul>
 * <li>MUTEX: {@code SET NX PX} with the owner token; compare-and-delete on release.</li>
 * <li>FAIR: the same, plus a FIFO queue of waiters whose places time out {@link #setWaiterTimeout waiter timeout}
 * after their last attempt, so a dead waiter blocks the queue only that long.</li>
 * <li>READ/WRITE: readers in a sorted set with a lease end each (a dead reader's hold expires), the writer as a
 * {@code SET NX PX} holder; waiting writers hold back new readers ({@link #setWriterPreference}).</li>
 * <li>SEMAPHORE: permits as sorted-set members with a lease end each, purged inside the acquire script.</li>
 * </ul>
 * Leases run on the Redis server's clock ({@code PX}, {@code TIME}). Releases publish on the lock's channel, and
 * waiters of this provider listen over one shared subscription. All keys of a lock share one hash tag (see
 * {@link RedisLockKeys}), so the backend works on Redis Cluster.
 * <p>
 * Fencing tokens strictly increase per key: a per-lock counter, kept {@link #setFenceRetention fence retention}
 * after the last grant, that never runs behind the server's clock in microseconds. Tokens therefore keep increasing
 * after the counter is lost (a restart without persistence, a failover that lost recent writes) as long as the
 * server clock does not step back further than the time the counter was away. Guarantees are those of the Redis
 * deployment: with asynchronous replication a failover can lose a granted lock, so two holders may overlap; fencing
 * tokens are how a resource detects that.
 *
 * @since 0.1.0
 */
public final class RedisLockProvider implements TryOnceLockProvider<RedisLockProvider.RedisHeldLock> {

	/** Default of {@link #setWaiterTimeout(Duration)}. */
	public static final Duration DEFAULT_WAITER_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Default of {@link #setFenceRetention(Duration)}: an hour, several times the largest step an NTP daemon makes to
	 * a running clock (ntpd refuses offsets over 1000 s), at a cost of one counter (about 150 bytes) per key locked in
	 * the last hour.
	 */
	public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofHours(1);

	private static final Log logger = LogFactory.getLog(RedisLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	/** Longest lease sent to Redis (a century); longer ones would overflow its expiry arithmetic. */
	private static final long MAX_MILLIS = Duration.ofDays(36_500).toMillis();

	private static final Duration SUBSCRIPTION_TIMEOUT = Duration.ofSeconds(2);

	private final StringRedisTemplate redis;

	private final ReleaseChannels channels;

	private volatile Duration waiterTimeout = DEFAULT_WAITER_TIMEOUT;

	private volatile Duration fenceRetention = DEFAULT_FENCE_RETENTION;

	private volatile boolean writerPreference = true;

	/**
	 * Creates a provider on the connection factory; it opens no connection until first used.
	 * @param connectionFactory the connections to Redis
	 */
	public RedisLockProvider(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		this.redis = new StringRedisTemplate(connectionFactory);
		this.channels = new ReleaseChannels(connectionFactory, SUBSCRIPTION_TIMEOUT);
	}

	/**
	 * Sets how long a FAIR waiter's queue place, or a waiting writer's hold on new readers, outlives its last attempt.
	 * Waiters attempt at least every {@code distlock.wait.fallback-poll}, so keep this several times longer; a waiter
	 * that died blocks the others at most this long. Default {@link #DEFAULT_WAITER_TIMEOUT}.
	 * @param waiterTimeout the timeout
	 */
	public void setWaiterTimeout(Duration waiterTimeout) {
		Assert.isTrue(waiterTimeout.toMillis() > 0, "Waiter timeout must be at least 1 ms");
		this.waiterTimeout = waiterTimeout;
	}

	/**
	 * How long a FAIR waiter's queue place, or a waiting writer's hold on new readers, outlives its last attempt.
	 * @return the waiter timeout
	 */
	public Duration getWaiterTimeout() {
		return this.waiterTimeout;
	}

	/**
	 * Sets how long the fencing counter of a key is kept after its last grant (at least the grant's lease). Tokens
	 * are {@code max(counter + 1, server time in µs)}, so after the counter expires they keep increasing unless the
	 * server clock stepped back further than this; every key locked within the retention costs one counter in memory.
	 * Default {@link #DEFAULT_FENCE_RETENTION}.
	 * @param fenceRetention the retention
	 */
	public void setFenceRetention(Duration fenceRetention) {
		Assert.isTrue(fenceRetention.toMillis() > 0, "Fence retention must be at least 1 ms");
		this.fenceRetention = fenceRetention;
	}

	/**
	 * How long the fencing counter of a key is kept after its last grant.
	 * @return the fence retention
	 */
	public Duration getFenceRetention() {
		return this.fenceRetention;
	}

	/**
	 * Sets whether writers waiting for readers to leave hold back new readers, so that a steady stream of readers
	 * cannot starve them. Default {@code true}.
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

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	@Override
	public Acquisition<RedisHeldLock> tryAcquire(LockAttempt attempt) {
		RedisLockKeys keys = RedisLockKeys.of(attempt.key(), attempt.type());
		String owner = attempt.owner();
		long leaseMillis = millis(attempt.lease());
		String lease = Long.toString(leaseMillis);
		String retention = Long.toString(Math.max(millis(this.fenceRetention), leaseMillis));
		String waiterTimeout = Long.toString(millis(this.waiterTimeout));
		long result = switch (attempt.type()) {
			case MUTEX -> run(RedisLockScripts.ACQUIRE_MUTEX, List.of(keys.holder(), keys.fence()), owner, lease,
					retention);
			case FAIR -> run(RedisLockScripts.ACQUIRE_FAIR,
					List.of(keys.holder(), keys.queue(), keys.waiters(), keys.fence()), owner, lease, retention,
					waiterTimeout);
			case READ -> run(RedisLockScripts.ACQUIRE_READ,
					List.of(keys.holder(), keys.members(), keys.waiters(), keys.fence()), owner, lease, retention);
			case WRITE -> run(RedisLockScripts.ACQUIRE_WRITE,
					List.of(keys.holder(), keys.members(), keys.waiters(), keys.fence()), owner, lease, retention,
					this.writerPreference ? waiterTimeout : "0");
			case SEMAPHORE -> run(RedisLockScripts.ACQUIRE_SEMAPHORE, List.of(keys.members(), keys.fence()), owner,
					lease, retention, Integer.toString(permits(attempt)));
		};
		if (result > 0) {
			return Acquisition.acquired(new RedisHeldLock(attempt, keys, result));
		}
		return Acquisition.busy((result < 0) ? Duration.ofMillis(-result) : null);
	}

	@Override
	public ReleaseSubscription subscribe(LockAttempt attempt, Runnable listener) {
		return this.channels.subscribe(RedisLockKeys.of(attempt.key(), attempt.type()).channel(), listener);
	}

	@Override
	public boolean renew(RedisHeldLock held, Duration lease) {
		RedisLockKeys keys = held.keys();
		String owner = held.attempt().owner();
		String ms = Long.toString(millis(lease));
		long renewed = keys.heldAsMember() ? run(RedisLockScripts.RENEW_MEMBER, List.of(keys.members()), owner, ms)
				: run(RedisLockScripts.RENEW_HOLDER, List.of(keys.holder()), owner, ms);
		return renewed == 1;
	}

	/**
	 * Renews many leases in one round trip: their owner-checked renewal scripts pipelined on one connection. On a
	 * cluster connection (no pipelining across nodes) or when the pipeline fails as a whole (e.g. the scripts are not
	 * loaded yet after a restart), falls back to one call each.
	 */
	@Override
	public boolean[] renew(List<RedisHeldLock> locks, Duration lease) throws Exception {
		if (locks.size() > 1) {
			try {
				return renewPipelined(locks, lease);
			}
			catch (RuntimeException ex) {
				if (logger.isDebugEnabled()) {
					logger.debug("Pipelined renewal of " + locks.size() + " leases failed; renewing one by one", ex);
				}
			}
		}
		return TryOnceLockProvider.super.renew(locks, lease);
	}

	boolean[] renewPipelined(List<RedisHeldLock> locks, Duration lease) {
		byte[] ms = Long.toString(millis(lease)).getBytes(StandardCharsets.UTF_8);
		List<Object> replies = this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			for (RedisHeldLock held : locks) {
				RedisLockKeys keys = held.keys();
				boolean member = keys.heldAsMember();
				RedisScript<Long> script = member ? RedisLockScripts.RENEW_MEMBER : RedisLockScripts.RENEW_HOLDER;
				byte[] key = (member ? keys.members() : keys.holder()).getBytes(StandardCharsets.UTF_8);
				connection.scriptingCommands().evalSha(script.getSha1(), ReturnType.INTEGER, 1, key,
						held.attempt().owner().getBytes(StandardCharsets.UTF_8), ms);
			}
			return null;
		});
		boolean[] renewed = new boolean[locks.size()];
		for (int i = 0; i < renewed.length; i++) {
			Object reply = replies.get(i);
			if (reply instanceof Throwable failure) {
				throw new IllegalStateException("Renewal script failed", failure);
			}
			renewed[i] = (reply instanceof Number number) && number.longValue() == 1;
		}
		return renewed;
	}

	@Override
	public void release(RedisHeldLock held) {
		RedisLockKeys keys = held.keys();
		String owner = held.attempt().owner();
		if (keys.heldAsMember()) {
			run(RedisLockScripts.RELEASE_MEMBER, List.of(keys.members()), owner, keys.channel());
		}
		else {
			run(RedisLockScripts.RELEASE_HOLDER, List.of(keys.holder()), owner, keys.channel());
		}
	}

	/**
	 * Releases whatever the attempt may hold (its reply may have been lost) and takes it out of the FAIR queue or the
	 * waiting writers, in one script.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
		RedisLockKeys keys = RedisLockKeys.of(attempt.key(), attempt.type());
		String owner = attempt.owner();
		try {
			switch (attempt.type()) {
				case MUTEX -> run(RedisLockScripts.RELEASE_HOLDER, List.of(keys.holder()), owner, keys.channel());
				case FAIR -> run(RedisLockScripts.RELEASE_HOLDER, List.of(keys.holder(), keys.waiters(), keys.queue()),
						owner, keys.channel());
				case WRITE -> run(RedisLockScripts.RELEASE_HOLDER, List.of(keys.holder(), keys.waiters()), owner,
						keys.channel());
				case READ, SEMAPHORE -> run(RedisLockScripts.RELEASE_MEMBER, List.of(keys.members()), owner,
						keys.channel());
			}
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not clean up after " + attempt + "; its lease or queue place ends on its own", ex);
			}
		}
	}

	/**
	 * Stops the shared subscription. Locks still held stay held until their leases end.
	 */
	@Override
	public void close() {
		this.channels.close();
	}

	private long run(RedisScript<Long> script, List<String> keys, Object... args) {
		Long result = this.redis.execute(script, keys, args);
		if (result == null) {
			throw new IllegalStateException("Redis returned no reply to a lock script (is it in a transaction or "
					+ "pipeline?)");
		}
		return result;
	}

	private static int permits(LockAttempt attempt) {
		Assert.isTrue(attempt.permits() > 0, "Permits of a SEMAPHORE must be positive");
		return attempt.permits();
	}

	private static long millis(Duration duration) {
		long millis;
		try {
			millis = duration.toMillis();
		}
		catch (ArithmeticException ex) {
			millis = MAX_MILLIS;
		}
		return Math.max(1, Math.min(millis, MAX_MILLIS));
	}

	public record RedisHeldLock(LockAttempt attempt, RedisLockKeys keys, long fencingToken) implements HeldLock {
	}

	/**
	 * Health check for indicators and the locks endpoint: a {@code PING}, which writes nothing (no lock, no fencing
	 * counter), bounded by the connection's command timeout.
	 * @param probe unused: the check touches no key
	 */
	@Override
	public void checkHealth(LockAttempt probe) {
		String pong = this.redis.execute((RedisCallback<String>) (connection) -> connection.ping());
		if (!"PONG".equalsIgnoreCase(pong)) {
			throw new IllegalStateException("Redis answered PING with " + pong);
		}
	}
}
