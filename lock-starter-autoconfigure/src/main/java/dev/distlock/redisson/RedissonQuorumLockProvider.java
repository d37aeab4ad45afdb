package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.TryOnceLockProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The {@code redisson-quorum} backend: a MUTEX held on a majority of several independent Redis servers, in the manner
 * of Redlock. An attempt asks every node at once for a Redisson lock of the key (no waiting on a node, each
 * node bounded by the node timeout) and holds the lock if a majority granted it while time is left:
 * {@code validity = node lease - elapsed - drift > 0}, with {@code drift = lease / 100 + 2 ms} for clock-rate
 * differences. Each node's lease is the attempt's lease plus that drift, so the lease the core counts from the moment
 * it sent the request always ends before a majority of nodes let go. Otherwise the attempt releases every node and the
 * core's wait loop tries again with backoff until the wait deadline. When more nodes fail than a quorum can spare,
 * the attempt fails at once (a {@code LockAcquisitionException}), never waiting out the deadline on a dead quorum.
 * Renewal extends the lease on every node that still holds it and succeeds while that is a majority; release and
 * abandonment release every node (owner-checked).
 * <p>
 * <b>Fencing.</b> Each node takes a token inside its acquire script, {@code max(counter + 1, node clock in
 * microseconds)} (the {@code redisson} provider's script and key names); the quorum's token is the largest its
 * majority returned. When fewer than a majority returned that largest value, a second step lifts the lagging counters
 * to it on the nodes still held, and the lock counts as granted only if afterwards a majority of nodes carry a counter
 * at least the token. Any later majority overlaps that one, and its next token there exceeds the token. A node that
 * lost its counter (restarted without persistence, or the counter expired {@link #setFenceRetention fence retention}
 * after the key's last grant) falls back on its clock, so tokens still rise unless the clocks of a later majority lag
 * the last token by more than the time since it was handed out: keep the nodes' clocks synchronized. Restart a
 * crashed node only after the longest lease has passed (it forgets its locks).
 * <p>
 * <b>What this does and does not promise.</b> Redisson deprecated its own {@code RedissonRedLock}: the algorithm is
 * safe only under timing assumptions (bounded network delay, bounded process pauses, clocks that advance at about the
 * same rate) that real systems break, as Martin Kleppmann showed; a garbage-collection pause or a node's clock jump
 * can leave two holders that both believe they hold the lock. Redisson points to {@code RLock} and
 * {@code RFencedLock} instead, on a replicated deployment where its replica-synchronization check hands out a lock
 * only once replicas have it (see the {@code redisson} provider). This provider keeps the quorum because
 * it survives the loss of a minority of independent servers without failover, but it promises only what Redlock
 * promises: mutual exclusion while those timing assumptions hold. It does not promise safety across pauses or clock
 * jumps: a resource that must never accept a stale holder's write must check the fencing token.
 *
 * @since 0.1.0
 */
public final class RedissonQuorumLockProvider implements TryOnceLockProvider<RedissonHeldLock> {

	/** The provider's name. */
	public static final String NAME = "redisson-quorum";

	/** Default of how long one node may take to answer. */
	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(200);

	private static final Log logger = LogFactory.getLog(RedissonQuorumLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.of(LockType.MUTEX);

	/** Default of {@link #setFenceRetention(Duration)}. */
	public static final Duration DEFAULT_FENCE_RETENTION = RedissonLockScripts.DEFAULT_FENCE_RETENTION;

	private final List<Node> nodes;

	private final int majority;

	private final long nodeTimeoutMillis;

	private final boolean ownsClients;

	private volatile long fenceRetentionMillis = DEFAULT_FENCE_RETENTION.toMillis();

	/** Owner ids of rounds that neither succeeded nor arranged their clean-up yet (interrupted, failed midway). */
	private final Map<LockAttempt, Queue<Long>> rounds = new ConcurrentHashMap<>();

	/**
	 * Creates a provider over clients of independent Redis servers (not replicas of one another), which the caller
	 * keeps and shuts down.
	 * @param clients one client per server; at least one, an odd number is best
	 * @param nodeTimeout how long one node may take to answer, well below the shortest lease
	 */
	public RedissonQuorumLockProvider(List<RedissonClient> clients, Duration nodeTimeout) {
		this(clients, nodeTimeout, false);
	}

	private RedissonQuorumLockProvider(List<RedissonClient> clients, Duration nodeTimeout, boolean ownsClients) {
		if (clients.isEmpty()) {
			throw new IllegalArgumentException("A quorum lock needs at least one Redis node");
		}
		this.nodes = clients.stream().map(Node::new).toList();
		this.majority = clients.size() / 2 + 1;
		this.nodeTimeoutMillis = Math.max(1, nodeTimeout.toMillis());
		this.ownsClients = ownsClients;
	}

	/**
	 * Connects to independent Redis servers, one Redisson client each, owned by the provider (closing it shuts them
	 * down). Clients connect lazily, so a node that is down at startup only counts as failed until it is back.
	 * @param addresses the servers, e.g. {@code redis://10.0.0.1:6379}
	 * @param nodeTimeout how long one node may take to answer (connect and command timeout)
	 * @param customizer applied to each node's configuration last (credentials, TLS), may be {@code null}
	 * @return the provider
	 */
	public static RedissonQuorumLockProvider connect(List<String> addresses, Duration nodeTimeout,
			@Nullable Function<Config, Config> customizer) {
		List<RedissonClient> clients = new ArrayList<>();
		try {
			for (String address : addresses) {
				Config config = nodeConfig(address, nodeTimeout);
				clients.add(Redisson.create((customizer != null) ? customizer.apply(config) : config));
			}
		}
		catch (RuntimeException ex) {
			clients.forEach(RedissonClient::shutdown);
			throw ex;
		}
		return new RedissonQuorumLockProvider(clients, nodeTimeout, true);
	}

	/**
	 * The configuration {@link #connect} gives a node's client: one server, connect and command timeouts of the node
	 * timeout, no retries (a slow node must count as failed, not delay the quorum), lazy connection, few threads.
	 * @param address the server
	 * @param nodeTimeout the node timeout
	 * @return the configuration
	 */
	public static Config nodeConfig(String address, Duration nodeTimeout) {
		int timeout = (int) Math.min(Integer.MAX_VALUE, Math.max(1, nodeTimeout.toMillis()));
		Config config = new Config();
		config.setLazyInitialization(true);
		config.setNettyThreads(4);
		config.setThreads(2);
		config.useSingleServer()
			.setAddress(address)
			.setTimeout(timeout)
			.setConnectTimeout(timeout)
			.setRetryAttempts(0)
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(16)
			.setSubscriptionConnectionMinimumIdleSize(0)
			.setSubscriptionConnectionPoolSize(1);
		return config;
	}

	/**
	 * Sets how long each node keeps a key's fencing counter after its last grant; at least the lease of a lock that
	 * outlives it. Tokens stay above the nodes' clocks in microseconds, so a counter that is gone only matters if the
	 * clocks of a majority lag the token the quorum handed out by more than this: keep it above the nodes' clock skew
	 * and any step back a node's clock may take. Default {@link #DEFAULT_FENCE_RETENTION}.
	 * @param fenceRetention the retention, at least 1 ms
	 */
	public void setFenceRetention(Duration fenceRetention) {
		this.fenceRetentionMillis = RedissonLockScripts.retentionMillis(fenceRetention);
	}

	/**
	 * How long each node keeps a fencing counter after its key's last grant.
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

	/** How many nodes must hold the lock. */
	public int majority() {
		return this.majority;
	}

	/**
	 * One quorum round: asks every node, decides as soon as a majority granted or can no longer grant, and releases
	 * every node if the round failed.
	 * @throws QuorumUnavailableException if fewer nodes answered than a quorum needs
	 */
	/**
	 * Fifty milliseconds: a shorter lease would run out while a majority is still being asked (on a busy machine), so
	 * hardly any acquisition could be valid.
	 */
	@Override
	public Duration minimumLease() {
		return Duration.ofMillis(50);
	}

	@Override
	public AttemptOutcome<RedissonHeldLock> tryAcquire(LockAttempt attempt) throws Exception {
		long ownerId = RedissonHeldLock.nextOwnerId();
		// remembered until the round has succeeded or arranged its own clean-up, for abandon() in between
		this.rounds.computeIfAbsent(attempt, (key) -> new ConcurrentLinkedQueue<>()).add(ownerId);
		long leaseMillis = millis(attempt.lease());
		long drift = drift(leaseMillis);
		long nodeLease = leaseMillis + drift;
		long start = System.nanoTime();
		Round round = new Round(this.nodes.size(), this.majority);
		List<CompletableFuture<Long>> replies = new ArrayList<>(this.nodes.size());
		boolean granted = false;
		try {
			for (int i = 0; i < this.nodes.size(); i++) {
				int index = i;
				Node node = this.nodes.get(index);
				CompletableFuture<Long> reply = call(() -> RedissonLockScripts.acquireMutex(node.client,
						keys(attempt), node.field(ownerId), nodeLease, this.fenceRetentionMillis));
				reply.whenComplete((token, ex) -> round.reply(index, token, ex));
				replies.add(reply);
			}
			round.awaitDecision(this.nodeTimeoutMillis * 2);
			Long token = round.isGranted() ? fence(attempt, ownerId, round) : null;
			long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			if (token != null && nodeLease - elapsedMillis - drift > 0) {
				granted = true;
				return AttemptOutcome.acquired(new RedissonHeldLock(attempt, ownerId, null, token));
			}
			if (round.failed() > this.nodes.size() - this.majority) {
				throw new QuorumUnavailableException("Only " + (this.nodes.size() - round.failed()) + " of "
						+ this.nodes.size() + " Redis nodes answered within " + this.nodeTimeoutMillis
						+ " ms; the lock needs " + this.majority + " (" + round.firstFailure() + ")");
			}
			return AttemptOutcome.busy();
		}
		finally {
			if (!granted) {
				// release every node that granted or may have, also those whose answer is still on its way
				for (int i = 0; i < replies.size(); i++) {
					int index = i;
					replies.get(i).whenComplete((token, ex) -> {
						if (token != null || ex != null) {
							unlock(index, attempt, ownerId);
						}
					});
				}
			}
			if (granted || replies.size() == this.nodes.size()) {
				settle(attempt, ownerId);
			}
		}
	}

	private void settle(LockAttempt attempt, long ownerId) {
		this.rounds.computeIfPresent(attempt, (key, ownerIds) -> {
			ownerIds.remove(ownerId);
			return ownerIds.isEmpty() ? null : ownerIds;
		});
	}

	/**
	 * The token of a granted round: the largest one its nodes returned, once a majority of the nodes still held carry
	 * a counter at least that large.
	 */
	private @Nullable Long fence(LockAttempt attempt, long ownerId, Round round) {
		Map<Integer, Long> granted = round.granted();
		long token = granted.values().stream().mapToLong(Long::longValue).max().orElseThrow();
		long atToken = granted.values().stream().filter((t) -> t == token).count();
		if (atToken >= this.majority) {
			return token;
		}
		List<CompletableFuture<Long>> raises = new ArrayList<>();
		granted.forEach((index, nodeToken) -> {
			if (nodeToken < token) {
				Node node = this.nodes.get(index);
				raises.add(call(() -> RedissonLockScripts.RAISE_FENCE.evalLong(node.client,
						List.of(keys(attempt).lock(), keys(attempt).fence()), node.field(ownerId),
						String.valueOf(token),
						RedissonLockScripts.retention(this.fenceRetentionMillis, millis(attempt.lease())))));
			}
		});
		long raised = countOnes(raises);
		return (atToken + raised >= this.majority) ? token : null;
	}

	@Override
	public boolean renew(RedissonHeldLock held, Duration lease) throws Exception {
		long leaseMillis = millis(lease);
		String nodeLease = String.valueOf(leaseMillis + drift(leaseMillis));
		List<CompletableFuture<Long>> replies = new ArrayList<>();
		for (Node node : this.nodes) {
			replies.add(call(() -> RedissonLockScripts.EXTEND_HASH.evalLong(node.client,
					List.of(keys(held.attempt()).lock()), node.field(held.ownerId()), nodeLease)));
		}
		awaitAll(replies);
		int extended = 0;
		int failed = 0;
		Throwable failure = null;
		for (CompletableFuture<Long> reply : replies) {
			if (reply.isCompletedExceptionally() || !reply.isDone()) {
				failed++;
				failure = (failure != null) ? failure : failure(reply);
			}
			else if (Long.valueOf(1L).equals(reply.getNow(null))) {
				extended++;
			}
		}
		if (extended >= this.majority) {
			return true;
		}
		if (extended + failed < this.majority) {
			return false;
		}
		throw new QuorumUnavailableException("Lease of " + held.attempt() + " was extended on " + extended + " of "
				+ this.nodes.size() + " Redis nodes and " + failed + " did not answer; it needs " + this.majority,
				failure);
	}

	@Override
	public void release(RedissonHeldLock held) {
		List<CompletableFuture<Void>> replies = new ArrayList<>();
		for (int i = 0; i < this.nodes.size(); i++) {
			replies.add(unlock(i, held.attempt(), held.ownerId()));
		}
		awaitAll(replies);
	}

	@Override
	public void abandon(LockAttempt attempt) {
		Queue<Long> ownerIds = this.rounds.remove(attempt);
		if (ownerIds != null) {
			for (long ownerId : ownerIds) {
				for (int i = 0; i < this.nodes.size(); i++) {
					unlock(i, attempt, ownerId);
				}
			}
		}
	}

	/** Shuts down the node clients if {@link #connect} created them. */
	@Override
	public void close() {
		if (this.ownsClients) {
			for (Node node : this.nodes) {
				try {
					node.client.shutdown(0, 2, TimeUnit.SECONDS);
				}
				catch (RuntimeException ex) {
					logger.debug("Could not shut down a Redis node client", ex);
				}
			}
		}
	}

	private CompletableFuture<Void> unlock(int index, LockAttempt attempt, long ownerId) {
		CompletableFuture<Void> reply = call(
				() -> this.nodes.get(index).client.getLock(keys(attempt).lock()).unlockAsync(ownerId).toCompletableFuture());
		// not held there (never granted, expired): nothing to release
		return reply.exceptionally((ex) -> null);
	}

	/** A node call bounded by the node timeout; a call that throws at once fails the same way. */
	private <T> CompletableFuture<T> call(NodeCall<T> call) {
		try {
			return call.start().orTimeout(this.nodeTimeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private long countOnes(List<CompletableFuture<Long>> replies) {
		awaitAll(replies);
		return replies.stream()
			.filter((reply) -> reply.isDone() && !reply.isCompletedExceptionally())
			.filter((reply) -> Long.valueOf(1L).equals(reply.getNow(null)))
			.count();
	}

	private void awaitAll(List<? extends CompletableFuture<?>> replies) {
		try {
			CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
				.get(this.nodeTimeoutMillis * 2, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			// each reply is looked at on its own
		}
	}

	private static @Nullable Throwable failure(CompletableFuture<?> reply) {
		if (!reply.isDone()) {
			return null;
		}
		try {
			reply.join();
			return null;
		}
		catch (RuntimeException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
	}

	private static RedissonLockKeys keys(LockAttempt attempt) {
		return RedissonLockKeys.of(attempt.key(), LockType.MUTEX);
	}

	static long drift(long leaseMillis) {
		return leaseMillis / 100 + 2;
	}

	private static long millis(Duration duration) {
		return RedissonLockScripts.millis(duration);
	}

	@FunctionalInterface
	private interface NodeCall<T> {

		CompletableFuture<T> start();

	}

	/** One Redis server: its client and the id Redisson puts in front of owner ids there. */
	private static final class Node {

		final RedissonClient client;

		final String clientId;

		Node(RedissonClient client) {
			this.client = client;
			this.clientId = client.getId();
		}

		String field(long ownerId) {
			return RedissonLockKeys.holder(this.clientId, ownerId, LockType.MUTEX);
		}

	}

	/** The replies of one round and the moment it is decided. */
	private static final class Round {

		private final int nodes;

		private final int majority;

		private final Map<Integer, Long> granted = new ConcurrentHashMap<>();

		private final CountDownLatch decided = new CountDownLatch(1);

		private int busy;

		private int failed;

		private @Nullable Throwable firstFailure;

		Round(int nodes, int majority) {
			this.nodes = nodes;
			this.majority = majority;
		}

		synchronized void reply(int index, @Nullable Long token, @Nullable Throwable ex) {
			if (ex != null) {
				this.failed++;
				if (this.firstFailure == null) {
					this.firstFailure = ex;
				}
			}
			else if (token != null) {
				this.granted.put(index, token);
			}
			else {
				this.busy++;
			}
			int refused = this.busy + this.failed;
			if (this.granted.size() >= this.majority || refused > this.nodes - this.majority
					|| this.granted.size() + refused == this.nodes) {
				this.decided.countDown();
			}
		}

		void awaitDecision(long timeoutMillis) throws InterruptedException {
			this.decided.await(timeoutMillis, TimeUnit.MILLISECONDS);
		}

		synchronized boolean isGranted() {
			return this.granted.size() >= this.majority;
		}

		synchronized Map<Integer, Long> granted() {
			return Map.copyOf(this.granted);
		}

		synchronized int failed() {
			return this.failed;
		}

		synchronized @Nullable String firstFailure() {
			return (this.firstFailure != null) ? this.firstFailure.toString() : null;
		}

	}

	/**
	 * Health check for indicators and the locks endpoint: an {@code EXISTS} on the probe's key on every node, which
	 * writes nothing; healthy when a majority answers within the node timeout.
	 * @param probe the probe; only its key is read
	 * @throws QuorumUnavailableException if fewer nodes answered than a quorum needs
	 */
	@Override
	public void checkHealth(LockAttempt probe) {
		List<CompletableFuture<Long>> replies = new ArrayList<>();
		for (Node node : this.nodes) {
			replies.add(call(() -> node.client.getKeys().countExistsAsync(probe.key()).toCompletableFuture()));
		}
		awaitAll(replies);
		long answered = replies.stream().filter((reply) -> reply.isDone() && !reply.isCompletedExceptionally()).count();
		if (answered < this.majority) {
			Throwable failure = replies.stream().map(RedissonQuorumLockProvider::failure).filter((f) -> f != null)
				.findFirst().orElse(null);
			throw new QuorumUnavailableException("Only " + answered + " of " + this.nodes.size()
					+ " Redis nodes answered a health check within " + this.nodeTimeoutMillis + " ms; a quorum needs "
					+ this.majority, failure);
		}
	}
}
