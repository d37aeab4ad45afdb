package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * The {@code redisson} backend: distributed locks on an application's {@link RedissonClient}, made of Redisson's own
 * lock objects, so their key layouts, scripts and waiting (pub/sub on the lock's channel, the fair queue) are
 * Redisson's, while ownership, leases, renewal and fencing follow distlock's contract. Each lock type has its own
 * namespace ({@code {<key>}:redisson:<type>}, see {@link RedissonLockKeys}), so no key a user supplies can reach
 * another type's lock. One lock key {@code K} maps to:
 * <ul>
 * <li>MUTEX: a Redisson lock hash {@code {K}:redisson:mutex} (a plain {@code RLock} of that name excludes it too);</li>
 * <li>FAIR: Redisson's fair lock on {@code {K}:redisson:fair};</li>
 * <li>READ/WRITE: the read and write lock of one {@code RReadWriteLock} on {@code {K}:redisson:rw};</li>
 * <li>SEMAPHORE: {@code RPermitExpirableSemaphore} on {@code {K}:redisson:semaphore}. Plain {@code RSemaphore} is not
 * used: its permits have no owner and no lease, so a permit taken by a process that dies never comes back. Each
 * permit of the permit-expirable semaphore has its own lease, renewed as Redisson's {@code updateLeaseTime} does.
 * Its capacity is set to the request's {@code permits} when the semaphore does not exist: the first request fixes the
 * capacity, and a request asking for a different number shares the capacity already set (change it with Redisson's
 * {@code setPermits}, or let the semaphore expire, a fence retention after its last use). Redisson stamps a permit's
 * expiry with the acquiring client's wall clock, so skewed clocks shorten or lengthen other holders' permits: keep
 * them synchronized.</li>
 * </ul>
 * <p>
 * <b>Ownership by lease, not by thread.</b> Redisson ties a lock to {@code <client id>:<thread id>}. This provider
 * passes a synthetic owner id instead of the thread id, through Redisson's explicit-id methods
 * ({@code tryLockAsync(wait, lease, unit, id)}, {@code unlockAsync(id)}): a new one for every acquisition, unique in
 * this JVM and negative, so it can never coincide with the thread id of code that uses the same client's locks the
 * usual way. A lease is therefore released from any thread, including virtual threads.
 * <p>
 * <b>Leases.</b> Every acquisition passes the attempt's lease as Redisson's {@code leaseTime}, which keeps Redisson's
 * own watchdog off; renewal is the core's {@code LeaseRenewer} calling {@link #renew}, which extends only while the
 * owner still holds the lock (an owner-checked Lua script on Redisson's layout; for a permit as Redisson's
 * {@code updateLeaseTime} does) and otherwise reports the lease lost. The core counts a lease from when the request that granted it was
 * sent ({@link LockAttempt#markSent()}), never from the reply. When Redisson waits, the grant comes from one of the
 * requests it sends while waiting, which distlock cannot see; so the script that then takes the fencing token also
 * restarts the lease on the server, and the lease is counted from that request.
 * <p>
 * <b>Timeouts.</b> Every Redis call of one acquisition shares one deadline, the end of its wait plus the provider's
 * timeout, whatever the client's own timeouts and retries: with Redis down a call fails within wait + timeout.
 * <p>
 * <b>Fencing.</b> Every type takes its token from the key's counter {@code {K}:redisson:fence}, as
 * {@code max(counter + 1, server time in microseconds)}: a MUTEX inside its acquire script (one round trip), the
 * others right after Redisson granted them, in the script that restarts the lease, only while the owner still holds
 * the lock (one more round trip). A hold that begins after another ended therefore gets a larger token. The clock floor
 * keeps tokens rising when the counter is lost (a restart without persistence, a failover that lost the last writes),
 * so the counter expires {@link #setFenceRetention fence retention} after the key's last grant; it only matters while
 * the server clock could lag it. Nothing this provider writes lives without an expiry: lock hashes carry the lease,
 * counters and semaphores the retention (at least the longest lease).
 * <p>
 * Caveats: Redisson parks a fair-lock waiter in the queue for up to {@code Config.fairLockWaitTimeout} (5 minutes by
 * default), so a waiting process that dies can hold up a FAIR key that long; lower it in Redisson's configuration.
 * A waiter that distlock gives up on leaves the queue at once. A custom Redisson {@code NameMapper} is not supported.
 *
 * @since 0.1.0
 */
public final class RedissonLockProvider implements LockProvider<RedissonHeldLock> {

	/** The provider's name. */
	public static final String NAME = "redisson";

	/** Default of how long an acquisition may take beyond its wait time. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	/** Default of {@link #setFenceRetention(Duration)}. */
	public static final Duration DEFAULT_FENCE_RETENTION = RedissonLockScripts.DEFAULT_FENCE_RETENTION;

	private static final Log logger = LogFactory.getLog(RedissonLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	private static final int MAX_REMEMBERED_SEMAPHORES = 10_000;

	private final RedissonClient client;

	private final String clientId;

	private final long timeoutMillis;

	private final long fairWaitTimeoutMillis;

	private final Map<LockAttempt, Pending> pending = new ConcurrentHashMap<>();

	/**
	 * Semaphores this provider created or was granted a permit of, with when ({@code System.nanoTime()}): each of
	 * those extended the semaphore to live at least the fence retention, so within half of it there is no need to
	 * ask whether it exists.
	 */
	private final Map<String, Long> sizedSemaphores = new ConcurrentHashMap<>();

	private volatile long fenceRetentionMillis = DEFAULT_FENCE_RETENTION.toMillis();

	/**
	 * Creates a provider with a {@link #DEFAULT_TIMEOUT timeout} of 5 seconds.
	 * @param client the Redisson client
	 */
	public RedissonLockProvider(RedissonClient client) {
		this(client, DEFAULT_TIMEOUT);
	}

	/**
	 * Creates a provider.
	 * @param client the Redisson client
	 * @param timeout how long an acquisition may take beyond its wait time, all its Redis calls together, before it
	 * fails (whatever the client's own timeouts and retries), and how long one renewal or release may take
	 */
	public RedissonLockProvider(RedissonClient client, Duration timeout) {
		this.client = client;
		this.clientId = client.getId();
		this.timeoutMillis = Math.max(1, timeout.toMillis());
		this.fairWaitTimeoutMillis = client.getConfig().getFairLockWaitTimeout();
	}

	/**
	 * Sets how long a key's fencing counter (and a semaphore nobody uses) is kept after its last grant or renewal; at
	 * least the lease of a lock that outlives it. Tokens stay above the server clock in microseconds, so a counter
	 * that is gone only matters if the server clock stepped back further than this since the key's last grant: keep it
	 * above any step back the server's clock may take; each key locked within it costs one small string in Redis
	 * (~90 bytes). Default {@link #DEFAULT_FENCE_RETENTION}.
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

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	/**
	 * Acquires with Redisson's own waiting (pub/sub on the lock's channel, the fair queue), up to the waiter's
	 * deadline.
	 */
	@Override
	public @Nullable RedissonHeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return acquire(attempt, waiter.isTryOnce() ? System.nanoTime() : waiter.deadlineNanos());
	}

	/**
	 * One acquisition: every Redis call it makes shares one deadline, the end of the wait plus one timeout, so a
	 * Redis that is down or slow never holds the caller longer, however many calls the lock type needs.
	 */
	private @Nullable RedissonHeldLock acquire(LockAttempt attempt, long waitUntilNanos) throws Exception {
		Pending state = new Pending(RedissonHeldLock.nextOwnerId(), waitUntilNanos,
				waitUntilNanos + TimeUnit.MILLISECONDS.toNanos(this.timeoutMillis));
		Pending previous = this.pending.put(attempt, state);
		if (previous != null) {
			cleanUp(attempt, previous);
		}
		RedissonHeldLock held = switch (attempt.type()) {
			case MUTEX -> acquireMutex(attempt, state);
			case FAIR, READ, WRITE -> acquireHashLock(attempt, state, hashLock(attempt));
			case SEMAPHORE -> acquirePermit(attempt, state);
		};
		// granted, or a definite "no" from Redisson, which then holds nothing for the owner and has taken it out of
		// the fair queue itself: nothing is left to abandon; only a failure leaves the attempt pending
		this.pending.remove(attempt, state);
		return held;
	}

	/**
	 * MUTEX: one try with a script on Redisson's lock layout that also takes the fencing token (one round trip); if
	 * busy, Redisson's own waiting on the {@code RLock} of the same hash, then the token.
	 */
	private @Nullable RedissonHeldLock acquireMutex(LockAttempt attempt, Pending state) throws Exception {
		RedissonLockKeys keys = keys(attempt);
		attempt.markSent();
		Long token = await(state.track(RedissonLockScripts.acquireMutex(this.client, keys,
				holder(attempt, state.ownerId), leaseMillis(attempt), this.fenceRetentionMillis)), state.deadline);
		if (token != null) {
			return new RedissonHeldLock(attempt, state.ownerId, null, token);
		}
		if (state.waitMillis() <= 0) {
			return null;
		}
		return acquireHashLock(attempt, state, this.client.getLock(keys.lock()));
	}

	/**
	 * Redisson grants the lock, waiting its own way; the grant may come from any of the requests Redisson sends
	 * while it waits, which distlock cannot see. So the lease is restarted when the token is taken, in a second
	 * request marked as sent: the lease the core counts from that mark ends before the one Redis keeps.
	 */
	private @Nullable RedissonHeldLock acquireHashLock(LockAttempt attempt, Pending state, RLock lock)
			throws Exception {
		Boolean locked = await(state.track(lock.tryLockAsync(state.waitMillis(), leaseMillis(attempt),
				TimeUnit.MILLISECONDS, state.ownerId)), state.deadline);
		if (!Boolean.TRUE.equals(locked)) {
			return null;
		}
		attempt.markSent();
		Long token = await(extend(attempt, state.ownerId, leaseMillis(attempt), true), state.deadline);
		return new RedissonHeldLock(attempt, state.ownerId, null, requireToken(attempt, token));
	}

	private @Nullable RedissonHeldLock acquirePermit(LockAttempt attempt, Pending state) throws Exception {
		String name = keys(attempt).lock();
		sizeSemaphore(attempt, state, name);
		String permitId = await(state.track(this.client.getPermitExpirableSemaphore(name)
			.tryAcquireAsync(state.waitMillis(), leaseMillis(attempt), TimeUnit.MILLISECONDS)), state.deadline);
		if (permitId == null) {
			// ask again next time: the semaphore may have been deleted, and then it would never grant a permit
			this.sizedSemaphores.remove(name);
			return null;
		}
		state.permitId = permitId;
		// as for hash locks: restart the permit's lease with the token, counted from this request
		attempt.markSent();
		Long token = await(extendPermit(attempt, permitId, leaseMillis(attempt), true), state.deadline);
		remember(name);
		return new RedissonHeldLock(attempt, state.ownerId, permitId, requireToken(attempt, token));
	}

	/**
	 * Creates the semaphore with the request's capacity unless it exists (with an expiry, unlike Redisson's
	 * {@code trySetPermits}); skipped while this provider knows it exists.
	 */
	private void sizeSemaphore(LockAttempt attempt, Pending state, String name) throws Exception {
		Long known = this.sizedSemaphores.get(name);
		if (known != null && System.nanoTime() - known < TimeUnit.MILLISECONDS.toNanos(this.fenceRetentionMillis) / 2) {
			return;
		}
		await(RedissonLockScripts.SIZE_SEMAPHORE.evalLong(this.client, List.of(name),
				String.valueOf(attempt.permits()), retention(attempt)), state.deadline);
		remember(name);
	}

	private void remember(String semaphore) {
		if (this.sizedSemaphores.size() >= MAX_REMEMBERED_SEMAPHORES) {
			this.sizedSemaphores.clear();
		}
		this.sizedSemaphores.put(semaphore, System.nanoTime());
	}

	private static long requireToken(LockAttempt attempt, @Nullable Long token) {
		if (token == null || token <= 0) {
			throw new IllegalStateException("The lease of " + attempt + " (" + attempt.lease()
					+ ") ran out before its fencing token could be taken; use a longer lease");
		}
		return token;
	}

	/**
	 * Restarts the lease of a hash lock (MUTEX, FAIR, READ, WRITE) if the owner still holds it, optionally taking the
	 * next fencing token in the same script.
	 * @return 0 if no longer held, else the token ({@code fence}) or 1
	 */
	private CompletableFuture<Long> extend(LockAttempt attempt, long ownerId, long leaseMillis, boolean fence) {
		RedissonLockKeys names = keys(attempt);
		String holder = holder(attempt, ownerId);
		List<Object> keys = new ArrayList<>(3);
		keys.add(names.lock());
		if (attempt.type() == LockType.READ) {
			keys.add(names.readHolds(holder));
		}
		if (fence) {
			keys.add(names.fence());
		}
		LuaScript script = (attempt.type() == LockType.READ) ? RedissonLockScripts.EXTEND_READ
				: RedissonLockScripts.EXTEND_HASH;
		return script.evalLong(this.client, keys, holder, String.valueOf(leaseMillis), retention(leaseMillis));
	}

	private CompletableFuture<Long> extendPermit(LockAttempt attempt, String permitId, long leaseMillis,
			boolean fence) {
		RedissonLockKeys names = keys(attempt);
		List<Object> keys = fence ? List.of(names.permitTimeouts(), names.lock(), names.fence())
				: List.of(names.permitTimeouts(), names.lock());
		return RedissonLockScripts.EXTEND_PERMIT.evalLong(this.client, keys, HexFormat.of().parseHex(permitId),
				String.valueOf(System.currentTimeMillis()), String.valueOf(leaseMillis), retention(leaseMillis));
	}

	@Override
	public boolean renew(RedissonHeldLock held, Duration lease) throws Exception {
		LockAttempt attempt = held.attempt();
		long millis = Math.max(1, lease.toMillis());
		CompletableFuture<Long> reply = (held.attempt().type() == LockType.SEMAPHORE)
				? extendPermit(held.attempt(), held.permit(), millis, false)
				: extend(held.attempt(), held.ownerId(), millis, false);
		return isOne(await(reply, timeoutFromNow()));
	}

	private static boolean isOne(@Nullable Long reply) {
		return reply != null && reply == 1L;
	}

	@Override
	public void release(RedissonHeldLock held) throws Exception {
		LockAttempt attempt = held.attempt();
		if (attempt.type() == LockType.SEMAPHORE) {
			// false when the permit already expired: nothing to give back
			await(this.client.getPermitExpirableSemaphore(keys(attempt).lock()).tryReleaseAsync(held.permit()),
					timeoutFromNow());
			return;
		}
		try {
			await(hashLock(attempt).unlockAsync(held.ownerId()), timeoutFromNow());
		}
		catch (IllegalMonitorStateException ex) {
			// no longer held by this owner (expired, taken over): releasing is a no-op
		}
	}

	/**
	 * Releases whatever the attempt's owner id may hold (owner-checked, so never another's lock) and leaves the
	 * fair queue. If Redisson is still working on the attempt (a wait that outlives an interrupt, a slow reply), its
	 * future is cancelled: Redisson then stops waiting and itself releases a grant that arrives after that. A
	 * SEMAPHORE permit whose reply never arrives cannot be named, and stays taken until its lease ends.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
		Pending state = this.pending.remove(attempt);
		if (state != null) {
			cleanUp(attempt, state);
		}
	}

	private void cleanUp(LockAttempt attempt, Pending state) {
		try {
			Object granted = null;
			CompletableFuture<?> acquiring = state.acquiring;
			if (acquiring != null) {
				acquiring.cancel(false);
				if (!acquiring.isCompletedExceptionally()) {
					granted = acquiring.getNow(null);
				}
			}
			releaseAbandoned(attempt, state, granted);
			if (attempt.type() == LockType.FAIR) {
				// a fair-lock script already on its way when Redisson's future was cancelled may queue the owner
				// again; once it has surely run, leave the queue once more
				CompletableFuture.delayedExecutor(this.timeoutMillis, TimeUnit.MILLISECONDS)
					.execute(() -> leaveFairQueue(attempt, state.ownerId));
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not clean up after " + attempt, ex);
		}
	}

	private void releaseAbandoned(LockAttempt attempt, Pending state, @Nullable Object granted) {
		if (attempt.type() == LockType.SEMAPHORE) {
			String permitId = (granted instanceof String id) ? id : state.permitId;
			if (permitId != null) {
				quietly(attempt, this.client.getPermitExpirableSemaphore(keys(attempt).lock())
					.tryReleaseAsync(permitId));
			}
			return;
		}
		quietly(attempt, hashLock(attempt).unlockAsync(state.ownerId));
		if (attempt.type() == LockType.FAIR) {
			leaveFairQueue(attempt, state.ownerId);
		}
	}

	private void leaveFairQueue(LockAttempt attempt, long ownerId) {
		try {
			RedissonLockKeys names = keys(attempt);
			quietly(attempt, RedissonLockScripts.LEAVE_FAIR_QUEUE.evalLong(this.client,
					List.of(names.fairQueue(), names.fairTimeouts()), holder(attempt, ownerId),
					String.valueOf(this.fairWaitTimeoutMillis)));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not take " + attempt + " out of the fair queue", ex);
		}
	}

	private static void quietly(LockAttempt attempt, CompletionStage<?> stage) {
		stage.whenComplete((result, ex) -> {
			if (ex != null && !(unwrap(ex) instanceof IllegalMonitorStateException) && logger.isDebugEnabled()) {
				logger.debug("Could not clean up after " + attempt, ex);
			}
		});
	}

	private RLock hashLock(LockAttempt attempt) {
		String name = keys(attempt).lock();
		return switch (attempt.type()) {
			case MUTEX -> this.client.getLock(name);
			case FAIR -> this.client.getFairLock(name);
			case READ -> this.client.getReadWriteLock(name).readLock();
			case WRITE -> this.client.getReadWriteLock(name).writeLock();
			case SEMAPHORE -> throw new IllegalArgumentException("A semaphore is not a lock: " + attempt);
		};
	}

	private static RedissonLockKeys keys(LockAttempt attempt) {
		return RedissonLockKeys.of(attempt.key(), attempt.type());
	}

	private String holder(LockAttempt attempt, long ownerId) {
		return RedissonLockKeys.holder(this.clientId, ownerId, attempt.type());
	}

	private String retention(long leaseMillis) {
		return RedissonLockScripts.retention(this.fenceRetentionMillis, leaseMillis);
	}

	private String retention(LockAttempt attempt) {
		return retention(leaseMillis(attempt));
	}

	private static long leaseMillis(LockAttempt attempt) {
		return RedissonLockScripts.millis(attempt.lease());
	}

	private long timeoutFromNow() {
		return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.timeoutMillis);
	}

	/** Waits for a Redis reply until the deadline ({@code System.nanoTime()}), rethrowing its failure as it is. */
	private <T> @Nullable T await(CompletionStage<T> stage, long deadlineNanos) throws Exception {
		try {
			return stage.toCompletableFuture().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = unwrap(ex);
			if (cause instanceof Exception exception) {
				throw exception;
			}
			throw ex;
		}
		catch (TimeoutException ex) {
			throw new TimeoutException("Redis did not answer within the wait time plus " + this.timeoutMillis
					+ " ms (distlock.redisson.timeout)");
		}
	}

	private static Throwable unwrap(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof ExecutionException || cause instanceof CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * What an acquisition in progress (or given up) may have taken: the owner id, Redisson's reply, a permit; and its
	 * deadlines ({@code System.nanoTime()}): the end of its wait, and that plus the timeout for every Redis call.
	 */
	private static final class Pending {

		final long ownerId;

		final long waitUntil;

		final long deadline;

		volatile @Nullable CompletableFuture<?> acquiring;

		volatile @Nullable String permitId;

		Pending(long ownerId, long waitUntil, long deadline) {
			this.ownerId = ownerId;
			this.waitUntil = waitUntil;
			this.deadline = deadline;
		}

		/** The wait left to hand to Redisson, 0 to try once. */
		long waitMillis() {
			return Math.max(0, TimeUnit.NANOSECONDS.toMillis(this.waitUntil - System.nanoTime()));
		}

		<T> CompletionStage<T> track(CompletionStage<T> future) {
			CompletableFuture<T> stage = future.toCompletableFuture();
			this.acquiring = stage;
			return stage;
		}

	}

	/**
	 * Health check for indicators and the locks endpoint: an {@code EXISTS} on the probe's key, which writes nothing,
	 * bounded by the provider's timeout.
	 * @param probe the probe; only its key is read
	 */
	@Override
	public void checkHealth(LockAttempt probe) throws Exception {
		await(this.client.getKeys().countExistsAsync(probe.key()), timeoutFromNow());
	}
}
