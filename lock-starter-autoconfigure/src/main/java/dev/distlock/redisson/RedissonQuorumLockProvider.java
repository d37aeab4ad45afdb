package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.core.spi.TryOnceLockProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The {@code redisson-quorum} backend: a MUTEX held on a majority of several independent
 * Redis servers, in the manner of Redlock. An attempt asks every node at once and holds
 * the lock if a majority granted it with validity left
 * ({@code node lease - elapsed - drift > 0}), so the lease the core counts ends before a
 * majority lets go; when more nodes fail than a quorum can spare, it fails at once with a
 * {@code LockAcquisitionException}. Renewal succeeds while a majority still holds. Every
 * call waits at most a node timeout, an acquisition's calls also end by its
 * {@link LockAttempt#deadlineNanos() deadline}, and a late grant is released in the
 * background. Fencing tokens rise per lock unless a later majority's clocks lag the last
 * token ({@link #setFenceRetention fence retention}); restart a crashed node only after
 * the longest lease has passed. It promises only what Redlock promises: mutual exclusion
 * while network delay, process pauses and clock rates stay bounded. Across a pause or a
 * clock jump two holders may overlap, so a resource that must refuse a stale holder
 * checks the fencing token. See docs/redisson.md.
 *
 * @since 0.1.0
 */
public final class RedissonQuorumLockProvider implements TryOnceLockProvider<RedissonHeldLock> {

	/** The provider's name. */
	public static final String NAME = "redisson-quorum";

	/** Default of how long one node may take to answer. */
	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(200);

	/** Default of {@link #setFenceRetention(Duration)}. */
	public static final Duration DEFAULT_FENCE_RETENTION = RedissonLockScripts.DEFAULT_FENCE_RETENTION;

	private static final Log logger = LogFactory.getLog(RedissonQuorumLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.of(LockType.MUTEX);

	private final List<RedissonNode> nodes;

	private final int majority;

	private final long nodeTimeoutNanos;

	private final boolean ownsClients;

	private volatile long fenceRetentionMillis = DEFAULT_FENCE_RETENTION.toMillis();

	/**
	 * Owner ids of rounds that neither succeeded nor arranged their clean-up yet
	 * (interrupted, failed midway).
	 */
	private final Map<LockAttempt, Queue<Long>> rounds = new ConcurrentHashMap<>();

	/**
	 * Creates a provider over clients of independent Redis servers (not replicas of one
	 * another), which the caller keeps and shuts down.
	 * @param clients one client per server; at least one, an odd number is best
	 * @param nodeTimeout how long one node may take to answer, well below the shortest
	 * lease
	 */
	public RedissonQuorumLockProvider(List<RedissonClient> clients, Duration nodeTimeout) {
		this(clients, nodeTimeout, false);
	}

	private RedissonQuorumLockProvider(List<RedissonClient> clients, Duration nodeTimeout, boolean ownsClients) {
		if (clients.isEmpty()) {
			throw new IllegalArgumentException("A quorum lock needs at least one Redis node");
		}
		this.nodes = clients.stream().map(RedissonNode::new).toList();
		this.majority = clients.size() / 2 + 1;
		this.nodeTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, nodeTimeout.toMillis()));
		this.ownsClients = ownsClients;
	}

	/**
	 * Connects to independent Redis servers, one Redisson client each, owned by the
	 * provider (closing it shuts them down). Clients connect lazily, so a node that is
	 * down at startup only counts as failed until it is back.
	 * @param addresses the servers, e.g. {@code redis://10.0.0.1:6379}
	 * @param nodeTimeout how long one node may take to answer (connect and command
	 * timeout)
	 * @param customizer applied to each node's configuration last (credentials, TLS), may
	 * be {@code null}
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
	 * The configuration {@link #connect} gives a node's client: one server, connect and
	 * command timeouts of the node timeout, no retries (a slow node must count as failed,
	 * not delay the quorum), lazy connection, few threads.
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
	 * Sets how long each node keeps a key's fencing counter after its last grant; at
	 * least the lease of a lock that outlives it. Tokens stay above the nodes' clocks in
	 * microseconds, so a counter that is gone only matters if the clocks of a majority
	 * lag the token the quorum handed out by more than this: keep it above the nodes'
	 * clock skew and any step back a node's clock may take. Default
	 * {@link #DEFAULT_FENCE_RETENTION}.
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
	 * Fifty milliseconds: a shorter lease would run out while a majority is still being
	 * asked (on a busy machine), so hardly any acquisition could be valid.
	 */
	@Override
	public Duration minimumLease() {
		return Duration.ofMillis(50);
	}

	/**
	 * One quorum round: asks every node, decides as soon as a majority granted or can no
	 * longer grant, and releases every node if the round failed.
	 * @throws QuorumUnavailableException if fewer nodes answered than a quorum needs
	 */
	@Override
	public AttemptOutcome<RedissonHeldLock> tryAcquire(LockAttempt attempt) throws Exception {
		long ownerId = RedissonHeldLock.nextOwnerId();
		// remembered until the round has succeeded or arranged its own clean-up, for
		// abandon() in between
		this.rounds.computeIfAbsent(attempt, (key) -> new ConcurrentLinkedQueue<>()).add(ownerId);
		long leaseMillis = RedissonLockScripts.leaseMillis(attempt);
		long drift = drift(leaseMillis);
		long nodeLease = leaseMillis + drift;
		long start = System.nanoTime();
		RedissonLockKeys keys = RedissonLockKeys.of(attempt);
		QuorumRound<@Nullable Long> round = null;
		boolean granted = false;
		try {
			round = QuorumRound.ask(this.nodes.size(), this.majority, roundDeadline(attempt),
					(i) -> this.nodes.get(i).acquireMutex(keys, ownerId, nodeLease, this.fenceRetentionMillis),
					Objects::nonNull);
			Long token = round.await().isGranted() ? fence(attempt, ownerId, round) : null;
			long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			if (token != null && nodeLease - elapsedMillis - drift > 0) {
				granted = true;
				return AttemptOutcome.acquired(new RedissonHeldLock(attempt, ownerId, null, token));
			}
			if (round.failed() > this.nodes.size() - this.majority) {
				throw new QuorumUnavailableException("Only " + (this.nodes.size() - round.failed()) + " of "
						+ this.nodes.size() + " Redis nodes answered within " + nodeTimeoutMillis()
						+ " ms; the lock needs " + this.majority + " (" + round.firstFailure() + ")");
			}
			return AttemptOutcome.busy();
		}
		finally {
			if (round != null) {
				if (!granted) {
					releaseLate(attempt, ownerId, round);
				}
				settle(attempt, ownerId);
			}
		}
	}

	/**
	 * Releases, on every node, what a failed round was granted or may have been, also
	 * where the answer is still on its way: a grant (a token) once it is answered, an
	 * unknown outcome (also a release's) until the node surely holds nothing; a node the
	 * client could not reach was never asked.
	 */
	private void releaseLate(LockAttempt attempt, long ownerId, QuorumRound<?> round) {
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RedissonLockScripts.leaseMillis(attempt));
		for (int i = 0; i < this.nodes.size(); i++) {
			RedissonNode node = this.nodes.get(i);
			round.reply(i).whenComplete((reply, ex) -> {
				if (reply instanceof Long) {
					node.releaseLate(() -> unlock(node, attempt, ownerId), 1, until, attempt);
				}
				else if (ex != null && !RedissonNode.neverSent(ex)) {
					node.releaseUnknown(() -> unlock(node, attempt, ownerId), until, attempt);
				}
			});
		}
	}

	private void settle(LockAttempt attempt, long ownerId) {
		this.rounds.computeIfPresent(attempt, (key, ownerIds) -> {
			ownerIds.remove(ownerId);
			return ownerIds.isEmpty() ? null : ownerIds;
		});
	}

	/**
	 * The token of a granted round: the largest one its nodes returned, once a majority
	 * of the nodes still held carry a counter at least that large (the nodes that
	 * returned it, and those a second round raised to it).
	 */
	private @Nullable Long fence(LockAttempt attempt, long ownerId, QuorumRound<@Nullable Long> round)
			throws InterruptedException {
		Map<Integer, @Nullable Long> granted = round.granted();
		long token = granted.values().stream().filter(Objects::nonNull).mapToLong(Long::longValue).max().orElseThrow();
		RedissonLockKeys keys = RedissonLockKeys.of(attempt);
		String retention = RedissonLockScripts.retention(this.fenceRetentionMillis,
				RedissonLockScripts.leaseMillis(attempt));
		QuorumRound<Long> raised = QuorumRound.ask(this.nodes.size(), this.majority, roundDeadline(attempt), (i) -> {
			Long nodeToken = granted.get(i);
			if (nodeToken == null || nodeToken == token) {
				return CompletableFuture.completedFuture((nodeToken != null) ? 1L : 0L);
			}
			RedissonNode node = this.nodes.get(i);
			return node.eval(RedissonLockScripts.RAISE_FENCE, List.of(keys.lock(), keys.fence()),
					node.holder(ownerId, LockType.MUTEX), String.valueOf(token), retention);
		}, RedissonQuorumLockProvider::isOne);
		return raised.await().isGranted() ? token : null;
	}

	@Override
	public boolean renew(RedissonHeldLock held, Duration lease) throws Exception {
		return RedissonNode.renewed(renewAll(List.of(held), lease)[0]);
	}

	/**
	 * Extends every lease on every node at once, one round per lease: a lease is renewed
	 * while a majority still holds it, lost when so many nodes answered that they no
	 * longer hold it that no majority can, and failed otherwise (too few answers), each
	 * on its own, so a node that is down or silent never fails the leases the others
	 * renewed.
	 */
	@Override
	public RenewalOutcome[] renewAll(List<RedissonHeldLock> locks, Duration lease) {
		long leaseMillis = RedissonLockScripts.millis(lease);
		String nodeLease = String.valueOf(leaseMillis + drift(leaseMillis));
		long deadline = System.nanoTime() + this.nodeTimeoutNanos;
		List<QuorumRound<Long>> renewals = new ArrayList<>(locks.size());
		for (RedissonHeldLock held : locks) {
			renewals.add(QuorumRound.ask(this.nodes.size(), this.majority, deadline, (i) -> {
				RedissonNode node = this.nodes.get(i);
				return node.eval(RedissonLockScripts.EXTEND_HASH, List.of(RedissonLockKeys.of(held.attempt()).lock()),
						node.holder(held.ownerId(), LockType.MUTEX), nodeLease);
			}, RedissonQuorumLockProvider::isOne));
		}
		RenewalOutcome[] outcomes = new RenewalOutcome[locks.size()];
		for (int i = 0; i < outcomes.length; i++) {
			QuorumRound<Long> round = renewals.get(i);
			try {
				round.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			if (round.isGranted() || round.isRefused()) {
				outcomes[i] = RenewalOutcome.of(round.isGranted());
			}
			else {
				outcomes[i] = RenewalOutcome
					.failed(new QuorumUnavailableException("Lease of " + locks.get(i).attempt() + " was extended on "
							+ round.granted().size() + " of " + this.nodes.size() + " Redis nodes and " + round.failed()
							+ " did not answer; it needs " + this.majority, round.firstFailure()));
			}
		}
		return outcomes;
	}

	/**
	 * Releases every node (owner-checked); returns once a majority answered, at most a
	 * node timeout. A node whose release got no answer is asked again in the background
	 * until it answers.
	 */
	@Override
	public void release(RedissonHeldLock held) throws InterruptedException {
		QuorumRound<Boolean> round = QuorumRound.ask(this.nodes.size(), this.majority,
				System.nanoTime() + this.nodeTimeoutNanos,
				(i) -> unlock(this.nodes.get(i), held.attempt(), held.ownerId()), (freed) -> true);
		releaseLate(held.attempt(), held.ownerId(), round);
		round.await();
	}

	@Override
	public void abandon(LockAttempt attempt) {
		Queue<Long> ownerIds = this.rounds.remove(attempt);
		if (ownerIds != null) {
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RedissonLockScripts.leaseMillis(attempt));
			for (long ownerId : ownerIds) {
				for (RedissonNode node : this.nodes) {
					node.releaseUnknown(() -> unlock(node, attempt, ownerId), until, attempt);
				}
			}
		}
	}

	/** Shuts down the node clients if {@link #connect} created them. */
	@Override
	public void close() {
		if (this.ownsClients) {
			for (RedissonNode node : this.nodes) {
				try {
					node.client().shutdown(0, 2, TimeUnit.SECONDS);
				}
				catch (RuntimeException ex) {
					logger.debug("Could not shut down a Redis node client", ex);
				}
			}
		}
	}

	/**
	 * Health check for indicators and the locks endpoint: an {@code EXISTS} on the
	 * probe's key on every node, which writes nothing; healthy when a majority answers
	 * within the node timeout.
	 * @param probe the probe; only its key is read
	 * @throws QuorumUnavailableException if fewer nodes answered than a quorum needs
	 */
	@Override
	public void checkHealth(LockAttempt probe) throws InterruptedException {
		QuorumRound<Long> round = QuorumRound
			.ask(this.nodes.size(), this.majority, System.nanoTime() + this.nodeTimeoutNanos,
					(i) -> this.nodes.get(i).probe(probe.key()), (answer) -> true)
			.await();
		if (!round.isGranted()) {
			throw new QuorumUnavailableException("Only " + round.granted().size() + " of " + this.nodes.size()
					+ " Redis nodes answered a health check within " + nodeTimeoutMillis() + " ms; a quorum needs "
					+ this.majority, round.firstFailure());
		}
	}

	private static CompletableFuture<Boolean> unlock(RedissonNode node, LockAttempt attempt, long ownerId) {
		return RedissonNode.unlock(node.client().getLock(RedissonLockKeys.of(attempt).lock()), ownerId);
	}

	/**
	 * The end of one round of an acquisition: a node timeout from now, and never past the
	 * attempt's deadline.
	 */
	private long roundDeadline(LockAttempt attempt) {
		long nodeDeadline = System.nanoTime() + this.nodeTimeoutNanos;
		return (attempt.deadlineNanos() - nodeDeadline < 0) ? attempt.deadlineNanos() : nodeDeadline;
	}

	private long nodeTimeoutMillis() {
		return TimeUnit.NANOSECONDS.toMillis(this.nodeTimeoutNanos);
	}

	private static boolean isOne(@Nullable Long reply) {
		return reply != null && reply == 1L;
	}

	static long drift(long leaseMillis) {
		return leaseMillis / 100 + 2;
	}

}
