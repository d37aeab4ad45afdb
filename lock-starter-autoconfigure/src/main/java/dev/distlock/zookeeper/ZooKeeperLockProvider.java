package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The ZooKeeper backend, named {@code zookeeper}, on a started Curator
 * {@link CuratorFramework}. Every lock is a queue of ephemeral sequential nodes (see
 * {@link LockNodePaths} and {@link LockQueue}) granted in creation order, so MUTEX is as
 * fair as FAIR and a release wakes one waiter. Ownership is the node, whose path is never
 * reused: any thread may release, and a stale owner can only delete its own node. The
 * fencing token is the granted node's {@code czxid}, which increases per lock in
 * acquisition order. ZooKeeper has no expiring node, so leases end in the holder's
 * process ({@link #expiresLeases()} is {@code false}): the holder learns that its lease
 * ended before its node is deleted, and a crashed holder's lock frees at session expiry.
 * Only an answer the leader ordered proves the session alive; held leases end when it
 * goes unconfirmed for half the session timeout or is lost ({@link SessionDoubt}).
 * {@link #renewAll} checks up to {@value #CHECKS_PER_TRANSACTION} nodes per transaction.
 * An acquisition's calls end by {@link LockAttempt#deadlineNanos()}, every other call by
 * the call timeout ({@link ZooKeeperCalls}); a node that a cut-off call created is found
 * by its protection id and deleted. See docs/zookeeper.md.
 *
 * @since 0.1.0
 */
public final class ZooKeeperLockProvider implements LockProvider<ZooKeeperHeldLock> {

	/** The base path used when none is given. */
	public static final String DEFAULT_BASE_PATH = "/distlock";

	/**
	 * The call timeout used when none is given: {@code distlock.call-timeout}'s default.
	 */
	public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Longest sleep of a waiter between checks of its queue, in case a watch event was
	 * lost.
	 */
	static final Duration RECHECK = Duration.ofSeconds(2);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	/**
	 * Most nodes checked in one renewal transaction, which keeps its request well below
	 * the servers' 1 MB limit whatever the keys.
	 */
	static final int CHECKS_PER_TRANSACTION = 500;

	private final CuratorFramework client;

	private final ZooKeeperCalls calls;

	private final LockNodePaths paths;

	private final long recheckNanos;

	private final HeldLocks held = new HeldLocks();

	private final NodeWatcher watcher = new NodeWatcher();

	private final SessionDoubt session;

	/**
	 * Creates a provider under {@value #DEFAULT_BASE_PATH}.
	 * @param client a started Curator client; its retry policy applies within each call's
	 * bound
	 */
	public ZooKeeperLockProvider(CuratorFramework client) {
		this(client, DEFAULT_BASE_PATH);
	}

	/**
	 * Creates a provider with the {@linkplain #DEFAULT_CALL_TIMEOUT default call
	 * timeout}.
	 * @param client a started Curator client (the caller closes it); its retry policy
	 * applies within each call's bound
	 * @param basePath the node all locks live under, e.g. {@code /distlock}
	 * @throws LockConfigurationException if the base path is invalid
	 */
	public ZooKeeperLockProvider(CuratorFramework client, String basePath) {
		this(client, basePath, RECHECK, DEFAULT_CALL_TIMEOUT);
	}

	ZooKeeperLockProvider(CuratorFramework client, String basePath, Duration recheck) {
		this(client, basePath, recheck, DEFAULT_CALL_TIMEOUT);
	}

	private ZooKeeperLockProvider(CuratorFramework client, String basePath, Duration recheck, Duration callTimeout) {
		this.client = client;
		this.calls = new ZooKeeperCalls(client, callTimeout);
		this.recheckNanos = recheck.toNanos();
		this.paths = new LockNodePaths(basePath);
		this.session = new SessionDoubt(client, new SessionDoubt.Holds() {

			@Override
			public int count() {
				return ZooKeeperLockProvider.this.held.size();
			}

			@Override
			public int loseAll(String reason, boolean sessionGone) {
				return ZooKeeperLockProvider.this.loseAll(reason, sessionGone);
			}

			@Override
			public void wakeWaiters() {
				ZooKeeperLockProvider.this.watcher.wakeAll();
			}

			@Override
			public @Nullable CompletionStage<Boolean> confirm(Executor onAnswer) throws Exception {
				return ZooKeeperLockProvider.this.confirm(onAnswer);
			}

		});
	}

	/**
	 * A builder for a provider on a started Curator client (the caller closes it).
	 * @param client the client; its retry policy applies within each call's bound
	 * @return the builder
	 */
	public static Builder builder(CuratorFramework client) {
		return new Builder(client);
	}

	@Override
	public String name() {
		return "zookeeper";
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	/**
	 * The mapping of keys to node paths this provider uses.
	 * @return the paths
	 */
	public LockNodePaths paths() {
		return this.paths;
	}

	/**
	 * Queues one node and waits in place. A node alone in its lock holds it at once: the
	 * transaction that creates it also reads the lock's child count (see
	 * {@link ZooKeeperCalls#queue}), so an uncontended acquisition is one request, and a
	 * release one more. Otherwise the node is kept while the waiter watches the node
	 * ahead of it, re-checking on every event and at least every {@link #RECHECK}; if the
	 * node vanishes (its session expired), a new one is queued. A node that does not end
	 * up holding the lock is deleted before this returns or throws. Every call returns by
	 * the attempt's {@link LockAttempt#deadlineNanos() deadline}.
	 */
	@Override
	public @Nullable ZooKeeperHeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		long until = attempt.deadlineNanos();
		this.calls.awaitConnection(until);
		String lockPath = this.paths.lockPath(attempt.key(), attempt.type());
		byte[] data = data(attempt, attempt.lease());
		NodeWatcher.Wait wait = new NodeWatcher.Wait();
		Set<String> watched = new HashSet<>();
		String own = null;
		long token = 0;
		boolean granted = false;
		try {
			List<String> children = null;
			while (true) {
				if (own == null) {
					String prefix = LockNodePaths.marker(attempt.type()) + "-";
					attempt.markSent();
					long sent = System.nanoTime();
					ZooKeeperCalls.Queued queued = this.calls.queue(lockPath, prefix, data, until);
					ZooKeeperCalls.Created created;
					if (queued != null) {
						this.session.confirmed(sent);
						created = queued.created();
						if (queued.alone() && created.czxid() != 0) {
							// alone in the queue: first, whatever the type
							own = created.path();
							granted = true;
							return grant(attempt, own, created.czxid());
						}
					}
					else {
						created = create(lockPath + "/" + prefix, data, until);
					}
					own = created.path();
					token = created.czxid();
					if (token == 0) {
						// found again by its protection id after a lost reply: the stat
						// was not filled in
						Stat found = this.calls.exists(own, null, until);
						token = (found != null) ? found.getCzxid() : 0;
					}
					children = null;
				}
				if (children == null) {
					// a read proves nothing of the session: a follower cut off from the
					// leader answers it too
					attempt.markSent();
					children = this.calls.children(lockPath, until);
				}
				LockQueue.Position position = (token != 0) ? LockQueue.position(queueOf(lockPath, children, until),
						ZKPaths.getNodeFromPath(own), attempt.type(), attempt.permits()) : null;
				if (position == null) {
					// our node is gone (session expired, or deleted by an operator):
					// queue again at the back
					own = null;
					continue;
				}
				if (position.granted()) {
					if (position.announce()) {
						long sent = System.nanoTime();
						if (!this.calls.setData(own, data, until)) {
							own = null;
							continue;
						}
						this.session.confirmed(sent);
					}
					if (!confirmOwn(own, until)) {
						own = null;
						continue;
					}
					granted = true;
					return grant(attempt, own, token);
				}
				if (waiter.isTryOnce() || waiter.remaining().isZero()) {
					return null;
				}
				unwatch(watched, wait);
				boolean gone = false;
				for (String name : position.watch()) {
					String target = lockPath + "/" + name;
					this.watcher.add(target, wait);
					watched.add(target);
					if (this.calls.exists(target, this.watcher, until) == null) {
						gone = true;
						break;
					}
				}
				children = null;
				if (!gone) {
					if (position.confirm()) {
						// the watched node's grant, not only its deletion, moves us:
						// re-read in case it came first
						attempt.markSent();
						List<String> again = this.calls.children(lockPath, until);
						if (!position.equals(LockQueue.position(queueOf(lockPath, again, until),
								ZKPaths.getNodeFromPath(own), attempt.type(), attempt.permits()))) {
							children = again;
							continue;
						}
					}
					long remaining = waiter.remaining().toNanos();
					if (remaining <= 0) {
						return null;
					}
					wait.await(Math.min(remaining, this.recheckNanos));
					gone = deletedAny(watched, wait);
				}
				if (gone && position.grantedWhenGone()) {
					// the only node ahead of ours is gone (the server said so on our live
					// session, so ours still stood), and nodes created since sort after
					// ours: the hand-over needs no read of the queue
					attempt.markSent();
					if (!confirmOwn(own, until)) {
						own = null;
						continue;
					}
					granted = true;
					return grant(attempt, own, token);
				}
			}
		}
		finally {
			unwatch(watched, wait);
			if (!granted && own != null) {
				delete(own, Math.min(until, this.calls.deadline()));
			}
		}
	}

	/**
	 * Queues a node. The lock node that holds the queue is a container, which the servers
	 * reap once it is empty: one reaped between Curator creating it and creating the node
	 * in it fails the create with "no node", so the create is tried again (it creates the
	 * parents again) until the deadline.
	 */
	private ZooKeeperCalls.Created create(String path, byte[] data, long until) throws Exception {
		while (true) {
			long sent = System.nanoTime();
			try {
				ZooKeeperCalls.Created created = this.calls.createSequential(path, data, until);
				this.session.confirmed(sent);
				return created;
			}
			catch (KeeperException.NoNodeException ex) {
				if (until - System.nanoTime() <= 0) {
					throw ex;
				}
			}
		}
	}

	/**
	 * A snapshot of a lock's children in creation order: by sequence number, or, once the
	 * lock node's sequence counter ran out, by the creation zxids read from the server
	 * (see {@link LockQueue}).
	 */
	private List<LockQueue.Node> queueOf(String lockPath, List<String> children, long until) throws Exception {
		List<LockQueue.Node> nodes = LockQueue.sorted(children);
		if (!LockQueue.sequenceExhausted(nodes)) {
			return nodes;
		}
		List<String> names = nodes.stream().map(LockQueue.Node::name).toList();
		return LockQueue.inCreationOrder(nodes, this.calls.creationZxids(lockPath, names, until));
	}

	private ZooKeeperHeldLock grant(LockAttempt attempt, String own, long token) {
		ZooKeeperHeldLock lock = new ZooKeeperHeldLock(attempt, own, token);
		this.held.add(lock);
		this.session.holding();
		return lock;
	}

	/**
	 * Confirms, before a grant that a read or a watch event decided, that the leader
	 * still keeps the session and our node: those may come from a follower cut off from
	 * the leader, which may have expired the session meanwhile. A session confirmed
	 * within the last eighth of its timeout needs no request (see
	 * {@link SessionDoubt#isFresh()}).
	 * @return whether the node still exists; {@code false} means it is gone and the
	 * waiter queues again
	 */
	private boolean confirmOwn(String own, long until) throws Exception {
		if (this.session.isFresh()) {
			return true;
		}
		long sent = System.nanoTime();
		boolean exists = this.calls.checked(this.calls.check(List.of(own)), until)[0];
		// the leader answered either way: a gone node is its answer too
		this.session.confirmed(sent);
		return exists;
	}

	/**
	 * One check of a held node in a transaction, which the leader orders: its answer
	 * confirms the session (see {@link SessionDoubt}). A node found gone ends its lock,
	 * as a failed renewal does.
	 */
	private @Nullable CompletionStage<Boolean> confirm(Executor onAnswer) throws Exception {
		ZooKeeperHeldLock lock = this.held.any();
		if (lock == null) {
			return null;
		}
		return this.calls.check(List.of(lock.path())).reply().thenApplyAsync((reply) -> {
			if (reply.rc() == KeeperException.Code.OK.intValue()) {
				return true;
			}
			if (!reply.nodeMissing()) {
				return false;
			}
			if (lock.finish()) {
				this.held.remove(lock);
				lock.attempt().reportLost("its node is gone from ZooKeeper");
			}
			return true;
		}, onAnswer);
	}

	private static boolean deletedAny(Set<String> watched, NodeWatcher.Wait wait) {
		for (String path : watched) {
			if (wait.deleted(path)) {
				return true;
			}
		}
		return false;
	}

	private void unwatch(Set<String> watched, NodeWatcher.Wait wait) {
		for (String path : watched) {
			this.watcher.remove(path, wait);
		}
		watched.clear();
		wait.forget();
	}

	@Override
	public boolean renew(ZooKeeperHeldLock zkLock, Duration lease) throws Exception {
		if (zkLock.isFinished()) {
			return false;
		}
		long sent = System.nanoTime();
		if (!this.calls.setData(zkLock.path(), data(zkLock.attempt(), lease), this.calls.deadline())) {
			if (zkLock.finish()) {
				this.held.remove(zkLock);
			}
			return false;
		}
		this.session.confirmed(sent);
		// a hold that ended meanwhile (session lost) stays ended: the renewal came too
		// late
		return !zkLock.isFinished();
	}

	/**
	 * Renews many leases with one transaction of existence checks per
	 * {@value #CHECKS_PER_TRANSACTION} leases, which goes through the leader as a
	 * renewal's write does; all transactions go out before the first answer is read, so a
	 * pass over many leases waits about one round trip, not one per transaction (see
	 * {@link ZooKeeperCalls#check}). A lease whose node is gone is not renewed (its
	 * holder learns it lost the lock); if the transaction gets no answer in the call
	 * timeout, every lease of it fails and the core tries again while the lease lasts.
	 * The node's data keeps the lease it was granted with.
	 */
	@Override
	public RenewalOutcome[] renewAll(List<ZooKeeperHeldLock> locks, Duration lease) {
		RenewalOutcome[] outcomes = new RenewalOutcome[locks.size()];
		List<ZooKeeperHeldLock> live = new ArrayList<>(locks.size());
		int[] indexes = new int[locks.size()];
		for (int i = 0; i < outcomes.length; i++) {
			if (locks.get(i).isFinished()) {
				outcomes[i] = RenewalOutcome.notHeld();
			}
			else {
				indexes[live.size()] = i;
				live.add(locks.get(i));
			}
		}
		long until = this.calls.deadline();
		// every batch's transaction goes out before the first answer is read
		List<ZooKeeperCalls.Checks> pending = new ArrayList<>();
		List<Exception> notSent = new ArrayList<>();
		long sent = System.nanoTime();
		for (int from = 0; from < live.size(); from += CHECKS_PER_TRANSACTION) {
			List<ZooKeeperHeldLock> batch = live.subList(from, Math.min(live.size(), from + CHECKS_PER_TRANSACTION));
			List<String> paths = new ArrayList<>(batch.size());
			batch.forEach((held) -> paths.add(held.path()));
			try {
				pending.add(this.calls.check(paths));
				notSent.add(null);
			}
			catch (Exception ex) {
				pending.add(null);
				notSent.add(ex);
			}
		}
		for (int from = 0, index = 0; from < live.size(); from += CHECKS_PER_TRANSACTION, index++) {
			List<ZooKeeperHeldLock> batch = live.subList(from, Math.min(live.size(), from + CHECKS_PER_TRANSACTION));
			boolean[] exists;
			try {
				ZooKeeperCalls.Checks checks = pending.get(index);
				if (checks == null) {
					throw notSent.get(index);
				}
				exists = this.calls.checked(checks, until);
				this.session.confirmed(sent);
			}
			catch (Exception ex) {
				if (ex instanceof InterruptedException) {
					Thread.currentThread().interrupt();
				}
				for (int i = 0; i < batch.size(); i++) {
					outcomes[indexes[from + i]] = RenewalOutcome.failed(ex);
				}
				continue;
			}
			for (int i = 0; i < batch.size(); i++) {
				ZooKeeperHeldLock held = batch.get(i);
				if (!exists[i] && held.finish()) {
					this.held.remove(held);
				}
				// a hold that ended meanwhile (session lost) stays ended: the renewal
				// came too late
				outcomes[indexes[from + i]] = RenewalOutcome.of(exists[i] && !held.isFinished());
			}
		}
		return outcomes;
	}

	@Override
	public void release(ZooKeeperHeldLock zkLock) {
		zkLock.finish();
		this.held.remove(zkLock);
		delete(zkLock.path(), this.calls.deadline());
	}

	/**
	 * Nothing is left to clean up: {@link #acquire(LockAttempt, LockWaiter)} deletes a
	 * node that does not hold the lock before it returns or throws, and a create whose
	 * reply came late or was lost is found and deleted by Curator's protected mode (see
	 * {@link ZooKeeperCalls}).
	 */
	@Override
	public void abandon(LockAttempt attempt) {
	}

	/**
	 * Deletes a node of ours. While connected the delete is one direct call, so the lock
	 * is free when a release returns; it bypasses Curator's retry loop, which would block
	 * a release for as long as the connection stays down. If that call fails or gets no
	 * reply by the deadline, or the client is disconnected or the thread interrupted,
	 * Curator's guaranteed delete takes over: it keeps retrying in the background, also
	 * after a reconnect, until the node is gone, so a release while disconnected returns
	 * at once and still never leaves a node that blocks the queue.
	 */
	private void delete(String path, long until) {
		if (this.client.getZookeeperClient().isConnected() && !Thread.currentThread().isInterrupted()) {
			long sent = System.nanoTime();
			try {
				if (this.calls.deleteOnce(path, until)) {
					this.session.confirmed(sent);
					return;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.calls.deleteInBackground(path);
	}

	/**
	 * Ends the held locks: the holder learns first; only then may another client get the
	 * lock. A lock whose holder already released it (kept for a hold-at-least) is left
	 * alone unless the session is certainly gone: if the session lives on, deleting its
	 * node would let another process in before the hold ends, and if it does not, the
	 * servers delete the node themselves.
	 */
	private int loseAll(String reason, boolean sessionGone) {
		int lost = 0;
		for (ZooKeeperHeldLock lock : this.held.snapshot()) {
			if ((sessionGone || !lock.attempt().isReleased()) && lock.finish()) {
				this.held.remove(lock);
				lock.attempt().reportLost(reason);
				this.calls.deleteInBackground(lock.path());
				lost++;
			}
		}
		return lost;
	}

	/**
	 * The node's data: the owner token, the lease and the full key. The token is appended
	 * without {@link LockAttempt#owner()}, which would keep it in the attempt for as long
	 * as the lock is held; nothing here reads it again.
	 */
	static byte[] data(LockAttempt attempt, Duration lease) {
		String key = attempt.key();
		StringBuilder data = new StringBuilder(80 + key.length()).append("owner=");
		// the key goes last: everything after "key=" is the key, whatever characters it
		// holds
		attempt.appendOwner(data).append("\nlease=").append(lease).append("\nkey=").append(key);
		return data.toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * {@code false}: a node lives as long as its holder's session, so the core's lease
	 * clock ends this provider's leases on time and releases them here.
	 */
	@Override
	public boolean expiresLeases() {
		return false;
	}

	/**
	 * Health check for indicators and the locks endpoint: waits for a connection and
	 * reads whether the base node exists, which writes nothing (no node, no session),
	 * bounded by the call timeout.
	 * @param probe unused: the check touches no lock
	 */
	@Override
	public void checkHealth(LockAttempt probe) throws Exception {
		long until = this.calls.deadline();
		this.calls.awaitConnection(until);
		this.calls.exists(this.paths.basePath(), null, until);
	}

	/**
	 * Stops the session handling. Locks still held keep their nodes until released or
	 * until the client's session ends.
	 */
	@Override
	public void close() {
		this.session.close();
		this.watcher.wakeAll();
		this.calls.close();
	}

	@Override
	public String toString() {
		return "ZooKeeperLockProvider[" + this.paths.basePath() + "]";
	}

	/**
	 * Builds a {@link ZooKeeperLockProvider}.
	 */
	public static final class Builder {

		private final CuratorFramework client;

		private String basePath = DEFAULT_BASE_PATH;

		private Duration callTimeout = DEFAULT_CALL_TIMEOUT;

		private Builder(CuratorFramework client) {
			this.client = client;
		}

		/**
		 * The node all locks live under.
		 * @param basePath the base path, e.g. {@code /distlock}
		 * @return this builder
		 */
		public Builder basePath(String basePath) {
			this.basePath = basePath;
			return this;
		}

		/**
		 * The longest a renewal, a release or a health check waits for its reply, and how
		 * far past its wait an acquisition's calls may run
		 * ({@code distlock.call-timeout}); whatever the client's connection timeout.
		 * @param callTimeout a positive duration
		 * @return this builder
		 * @throws LockConfigurationException if it is not positive
		 */
		public Builder callTimeout(Duration callTimeout) {
			if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) {
				throw new LockConfigurationException(
						"The call timeout of the zookeeper lock provider must be positive, was " + callTimeout);
			}
			this.callTimeout = callTimeout;
			return this;
		}

		/**
		 * Creates the provider.
		 * @return the provider
		 * @throws LockConfigurationException if the base path is invalid
		 */
		public ZooKeeperLockProvider build() {
			return new ZooKeeperLockProvider(this.client, this.basePath, RECHECK, this.callTimeout);
		}

	}

}
