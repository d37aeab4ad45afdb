package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.WakeUpSignal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The ZooKeeper backend, named {@code zookeeper}, on a started Curator {@link CuratorFramework}. Every lock is a queue
 * of ephemeral sequential nodes under {@code <base>/<encoded key>/<family>} (see {@link LockNodePaths}); the nodes'
 * creation order is the grant order, so MUTEX is as fair as FAIR, and a waiter keeps its place while it waits by
 * watching only the node that blocks it (see {@link LockQueue}), so a release wakes one waiter, not all of them.
 * Ownership is the node: its path is unique and never reused, so any thread may release, and a stale owner's delete
 * can only ever remove its own node.
 * <p>
 * <b>Fencing</b>: the token is the {@code czxid} of the granted node, the id of the transaction that created it.
 * Transaction ids increase strictly across the whole ensemble and across leader changes, and nodes are granted in
 * creation order, so tokens increase per lock in acquisition order, also when an empty lock node was reaped and
 * re-created (its sequence numbers restart, its czxids do not). Only an ensemble whose data is wiped starts over.
 * <p>
 * <b>Leases</b>: a node lives as long as its holder's session, so a crashed holder's lock frees at session expiry.
 * ZooKeeper has no expiring node a client could renew, so the lease is enforced in the holder's process: this
 * provider says so ({@link #expiresLeases()} is {@code false}), and the core's lease clock then watches every lease
 * of it, fixed ones included; when one passes without renewal it reports the lease lost and only then releases it
 * here, which deletes the node. The holder therefore always learns of the end of its lease before anyone else can
 * take the lock, and no client ever deletes another's node. Renewal is a {@code setData} of the node (a write, ordered through the leader), which fails
 * if the node is gone; the node's data is the owner token, the lease and the full key, for operators.
 * <p>
 * <b>Sessions</b>: SUSPENDED puts every lease in doubt: it is logged, and if the connection is not back while the
 * servers certainly still keep the session (a session timeout after the last request they answered, at least a third
 * of it after the loss), the leases are reported lost; a leader election, which keeps the session, usually ends well
 * within that. LOST (session expired) reports them lost at once. Either way the nodes are deleted with Curator's
 * guaranteed delete, which retries after reconnecting, as are nodes released while disconnected; nodes are created
 * with Curator's protection, so a create whose reply was lost is found or deleted, never orphaned.
 * <p>
 * <b>Bounds</b>: every call of an acquisition ends one connection timeout after its wait at the latest, Curator's
 * waits for a connection and its retries included (see {@link ZooKeeperCalls}); a renewal or a release waits at most
 * one connection timeout.
 *
 * @since 0.1.0
 */
public final class ZooKeeperLockProvider implements LockProvider<ZooKeeperHeldLock> {

	/** The base path used when none is given. */
	public static final String DEFAULT_BASE_PATH = "/distlock";

	/** Longest sleep of a waiter between checks of its queue, in case a watch event was lost. */
	static final Duration RECHECK = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(ZooKeeperLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	private static final AtomicInteger instances = new AtomicInteger();

	private final CuratorFramework client;

	private final ZooKeeperCalls calls;

	private final LockNodePaths paths;

	private final long recheckNanos;

	private final ScheduledThreadPoolExecutor scheduler;

	private final Map<String, ZooKeeperHeldLock> held = new ConcurrentHashMap<>();

	private final NodeWatcher watcher = new NodeWatcher();

	private final ConnectionStateListener stateListener = (client, state) -> stateChanged(state);

	/** Send time of the last request the servers answered; far in the past until there is one. */
	private volatile long lastConfirmedNanos = System.nanoTime() - Long.MAX_VALUE / 4;

	private volatile @Nullable ScheduledFuture<?> doubt;

	/**
	 * Creates a provider under {@value #DEFAULT_BASE_PATH}.
	 * @param client a started Curator client; its retry policy and timeouts apply
	 */
	public ZooKeeperLockProvider(CuratorFramework client) {
		this(client, DEFAULT_BASE_PATH);
	}

	/**
	 * Creates a provider.
	 * @param client a started Curator client (the caller closes it); its retry policy and timeouts apply
	 * @param basePath the node all locks live under, e.g. {@code /distlock}
	 * @throws dev.distlock.core.LockConfigurationException if the base path is invalid
	 */
	public ZooKeeperLockProvider(CuratorFramework client, String basePath) {
		this(client, basePath, RECHECK);
	}

	ZooKeeperLockProvider(CuratorFramework client, String basePath, Duration recheck) {
		this.client = client;
		this.calls = new ZooKeeperCalls(client);
		this.recheckNanos = recheck.toNanos();
		this.paths = new LockNodePaths(basePath);
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "distlock-zookeeper-" + instances.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		client.getConnectionStateListenable().addListener(this.stateListener);
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
	 * One attempt: queue a node, and take it back out unless it holds the lock at once.
	 */

	/**
	 * Queues one node and waits in place: the node is created once and kept while the waiter watches the node
	 * ahead of it, re-checking on every event and at least every {@link #RECHECK}; if the node vanishes (its session
	 * expired), a new one is queued. A node that does not end up holding the lock is deleted before this returns or
	 * throws.
	 */
	@Override
	public @Nullable ZooKeeperHeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		return queue(attempt, waiter);
	}

	private @Nullable ZooKeeperHeldLock queue(LockAttempt attempt, @Nullable LockWaiter waiter) throws Exception {
		// every call below ends by one connection timeout after the wait at the latest, retries included
		long until = this.calls.deadline((waiter != null) ? waiter.deadlineNanos() : System.nanoTime());
		this.calls.awaitConnection(until);
		String lockPath = this.paths.lockPath(attempt.key(), attempt.type());
		byte[] data = data(attempt, attempt.lease());
		WakeUpSignal wakeup = new WakeUpSignal();
		Set<String> watched = new HashSet<>();
		String own = null;
		long token = 0;
		boolean granted = false;
		try {
			List<String> children = null;
			long checkSent = 0;
			while (true) {
				if (own == null) {
					long createSent = System.nanoTime();
					ZooKeeperCalls.Created created = this.calls
						.createSequential(lockPath + "/" + LockNodePaths.marker(attempt.type()) + "-", data, until);
					confirmed(createSent);
					own = created.path();
					token = created.czxid();
					if (token == 0) {
						// found again by its protection id after a lost reply: the stat was not filled in
						Stat found = this.calls.exists(own, null, until);
						token = (found != null) ? found.getCzxid() : 0;
					}
					children = null;
				}
				if (children == null) {
					attempt.markSent();
					checkSent = System.nanoTime();
					children = this.calls.children(lockPath, until);
					confirmed(checkSent);
				}
				LockQueue.Position position = (token != 0)
						? LockQueue.position(queueOf(lockPath, children, until), ZKPaths.getNodeFromPath(own),
								attempt.type(), attempt.permits())
						: null;
				if (position == null) {
					// our node is gone (session expired, or deleted by an operator): queue again at the back
					own = null;
					continue;
				}
				if (position.granted()) {
					if (position.announce() && !this.calls.setData(own, data, until)) {
						own = null;
						continue;
					}
					ZooKeeperHeldLock lock = new ZooKeeperHeldLock(attempt, own, token);
					this.held.put(own, lock);
					granted = true;
					return lock;
				}
				if (waiter == null || waiter.isTryOnce() || waiter.remaining().isZero()) {
					return null;
				}
				unwatch(watched, wakeup);
				boolean gone = false;
				for (String name : position.watch()) {
					String target = lockPath + "/" + name;
					this.watcher.add(target, wakeup);
					watched.add(target);
					if (this.calls.exists(target, this.watcher, until) == null) {
						gone = true;
						break;
					}
				}
				children = null;
				if (gone) {
					continue;
				}
				if (position.confirm()) {
					// the watched node's grant, not only its deletion, moves us: re-read in case it came first
					attempt.markSent();
					long sent = System.nanoTime();
					List<String> again = this.calls.children(lockPath, until);
					confirmed(sent);
					if (!position.equals(LockQueue.position(queueOf(lockPath, again, until),
							ZKPaths.getNodeFromPath(own), attempt.type(), attempt.permits()))) {
						checkSent = sent;
						children = again;
						continue;
					}
				}
				long remaining = waiter.remaining().toNanos();
				if (remaining <= 0) {
					return null;
				}
				wakeup.await(Math.min(remaining, this.recheckNanos));
			}
		}
		finally {
			unwatch(watched, wakeup);
			if (!granted && own != null) {
				delete(own, until);
			}
		}
	}

	/**
	 * A snapshot of a lock's children in creation order: by sequence number, or, once the lock node's sequence
	 * counter ran out, by the creation zxids read from the server (see {@link LockQueue}).
	 */
	private List<LockQueue.Node> queueOf(String lockPath, List<String> children, long until) throws Exception {
		List<LockQueue.Node> nodes = LockQueue.sorted(children);
		if (!LockQueue.sequenceExhausted(nodes)) {
			return nodes;
		}
		List<String> names = nodes.stream().map(LockQueue.Node::name).toList();
		return LockQueue.inCreationOrder(nodes,
				this.calls.creationZxids(lockPath, names, until));
	}

	/**
	 * Records that the servers answered a request sent at the given time, so they heard from the session then.
	 * @param sentNanos when the request was sent
	 */
	private void confirmed(long sentNanos) {
		// a lost race keeps an older time, which only makes the doubt window end earlier
		if (sentNanos - this.lastConfirmedNanos > 0) {
			this.lastConfirmedNanos = sentNanos;
		}
	}

	private void unwatch(Set<String> watched, WakeUpSignal wakeup) {
		for (String path : watched) {
			this.watcher.remove(path, wakeup);
		}
		watched.clear();
	}

	@Override
	public boolean renew(ZooKeeperHeldLock zkLock, Duration lease) throws Exception {
		if (zkLock.isFinished()) {
			return false;
		}
		long sent = System.nanoTime();
		if (!this.calls.setData(zkLock.path(), data(zkLock.attempt(), lease), this.calls.deadline())) {
			if (zkLock.finish()) {
				this.held.remove(zkLock.path(), zkLock);
			}
			return false;
		}
		confirmed(sent);
		// a hold that ended meanwhile (session lost) stays ended: the renewal came too late
		return !zkLock.isFinished();
	}

	@Override
	public void release(ZooKeeperHeldLock zkLock) {
		zkLock.finish();
		this.held.remove(zkLock.path(), zkLock);
		delete(zkLock.path(), this.calls.deadline());
	}

	/**
	 * Nothing is left to clean up: {@link #acquire(LockAttempt, LockWaiter)} deletes a node that does not hold the
	 * lock before it returns or throws, and a create whose reply was lost is found or deleted by Curator's protected
	 * mode.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
	}

	/**
	 * Deletes a node of ours. While connected the delete is one direct call, so the lock is free when a release
	 * returns; it bypasses Curator's retry loop, which would block a release for as long as the connection stays down.
	 * If that call fails or gets no reply by the deadline, or the client is disconnected or the thread interrupted,
	 * Curator's guaranteed delete takes over: it keeps retrying in the background, also after a reconnect, until the
	 * node is gone, so a release while disconnected returns at once and still never leaves a node that blocks the
	 * queue.
	 */
	private void delete(String path, long until) {
		if (this.client.getZookeeperClient().isConnected() && !Thread.currentThread().isInterrupted()) {
			long sent = System.nanoTime();
			try {
				if (this.calls.deleteOnce(path, until)) {
					confirmed(sent);
					return;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.calls.deleteInBackground(path);
	}

	private void loseAll(String reason) {
		for (ZooKeeperHeldLock lock : this.held.values()) {
			if (lock.finish()) {
				lose(lock, reason);
			}
		}
	}

	/**
	 * Ends a hold that is already marked finished: the holder learns first; only then may another client get the
	 * lock.
	 */
	private void lose(ZooKeeperHeldLock lock, String reason) {
		this.held.remove(lock.path(), lock);
		lock.attempt().reportLost(reason);
		this.calls.deleteInBackground(lock.path());
	}

	private void stateChanged(ConnectionState state) {
		switch (state) {
			case SUSPENDED -> suspended();
			case LOST -> execute(() -> {
				cancelDoubt();
				if (!this.held.isEmpty()) {
					logger.warn("ZooKeeper session lost: " + this.held.size() + " held lock(s) are lost");
				}
				loseAll("the ZooKeeper session expired; its nodes, and so the lock, are gone");
				this.watcher.wakeAll();
			});
			case CONNECTED, RECONNECTED -> execute(() -> {
				if (cancelDoubt() && !this.held.isEmpty()) {
					logger.info("Reconnected to ZooKeeper; " + this.held.size() + " held lock(s) kept");
				}
				this.watcher.wakeAll();
			});
			default -> {
			}
		}
	}

	/**
	 * Puts the held leases in doubt: they stay valid only while the servers cannot have expired the session yet. The
	 * servers expire it a session timeout after they last heard from it, which was no earlier than the last request
	 * they answered, and, because a client notices a silent connection after two thirds of the timeout, no earlier
	 * than two thirds of it before now. A leader election, which keeps the session, usually ends well within that.
	 */
	private void suspended() {
		long now = System.nanoTime();
		long timeout = TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMillis());
		long safeUntil = Math.max(this.lastConfirmedNanos + timeout, now + timeout / 3) - timeout / 20;
		long grace = Math.max(0, safeUntil - now);
		if (!this.held.isEmpty()) {
			logger.warn("Connection to ZooKeeper suspended: " + this.held.size() + " held lock(s) in doubt; they are "
					+ "reported lost unless it comes back within " + TimeUnit.NANOSECONDS.toMillis(grace) + " ms");
		}
		try {
			cancelDoubt();
			this.doubt = this.scheduler.schedule(() -> {
				if (!this.client.getZookeeperClient().isConnected()) {
					loseAll("the connection to ZooKeeper was lost for " + TimeUnit.NANOSECONDS.toMillis(grace)
							+ " ms, long enough for the servers to expire the session");
				}
			}, grace, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// closed
		}
	}

	private int sessionTimeoutMillis() {
		int negotiated = this.client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
		return (negotiated > 0) ? negotiated : this.client.getZookeeperClient().getConnectionTimeoutMs();
	}

	private boolean cancelDoubt() {
		ScheduledFuture<?> pending = this.doubt;
		this.doubt = null;
		return pending != null && pending.cancel(false);
	}

	private void execute(Runnable task) {
		try {
			this.scheduler.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// closed
		}
	}

	private static byte[] data(LockAttempt attempt, Duration lease) {
		// the key goes last: everything after "key=" is the key, whatever characters it holds
		return ("owner=" + attempt.owner() + "\nlease=" + lease + "\nkey=" + attempt.key())
			.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * {@code false}: a node lives as long as its holder's session, so the core's lease clock ends this provider's
	 * leases on time and releases them here.
	 */
	@Override
	public boolean expiresLeases() {
		return false;
	}

	/**
	 * Stops the session handling. Locks still held keep their nodes until released or until the
	 * client's session ends.
	 */
	@Override
	public void close() {
		this.client.getConnectionStateListenable().removeListener(this.stateListener);
		this.scheduler.shutdownNow();
		this.watcher.wakeAll();
	}

	@Override
	public String toString() {
		return "ZooKeeperLockProvider[" + this.paths.basePath() + "]";
	}

	/**
	 * The provider's one watcher: ZooKeeper keeps a watcher once per path however often it is set, so waiters
	 * register here by path instead, and a waiter that gave up leaves nothing behind but a one-shot watch.
	 */
	private static final class NodeWatcher implements Watcher {

		private final Map<String, Set<WakeUpSignal>> waiting = new ConcurrentHashMap<>();

		void add(String path, WakeUpSignal wakeup) {
			this.waiting.compute(path, (p, set) -> {
				Set<WakeUpSignal> result = (set != null) ? set : ConcurrentHashMap.newKeySet();
				result.add(wakeup);
				return result;
			});
		}

		void remove(String path, WakeUpSignal wakeup) {
			this.waiting.computeIfPresent(path, (p, set) -> {
				set.remove(wakeup);
				return set.isEmpty() ? null : set;
			});
		}

		void wakeAll() {
			this.waiting.values().forEach((set) -> set.forEach(WakeUpSignal::signal));
		}

		@Override
		public void process(WatchedEvent event) {
			String path = event.getPath();
			if (event.getType() == Event.EventType.None || path == null) {
				wakeAll();
				return;
			}
			Set<WakeUpSignal> wakeups = this.waiting.get(path);
			if (wakeups != null) {
				wakeups.forEach(WakeUpSignal::signal);
			}
		}

	}

	/**
	 * Health check for indicators and the locks endpoint: waits for a connection and reads whether the base node
	 * exists, which writes nothing (no node, no session), bounded by the client's connection timeout.
	 * @param probe unused: the check touches no lock
	 */
	@Override
	public void checkHealth(LockAttempt probe) throws Exception {
		long until = this.calls.deadline();
		this.calls.awaitConnection(until);
		this.calls.exists(this.paths.basePath(), null, until);
	}
}
