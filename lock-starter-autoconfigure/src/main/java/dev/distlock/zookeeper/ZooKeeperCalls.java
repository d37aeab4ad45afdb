package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The provider's ZooKeeper calls, each bounded by a deadline: an acquisition's by its
 * wait plus the call timeout, any other by the call timeout, whatever the client's
 * connection timeout. Curator's foreground calls wait up to the connection timeout for a
 * connection on every try and retry by the client's retry policy, with no overall limit,
 * so one call can outlast the caller's wait several times over, and on a silent network
 * nothing answers at all. Here the calls of every acquisition and release (creating a
 * node, reading the queue, deleting a node) are synchronous calls on the caller's thread,
 * whose reply the client's send thread hands over directly, cut off at the deadline by
 * {@link CallDeadlines}; the others (watching, renewing) go out in the background and the
 * caller waits for the reply only until the deadline. Either way a call past its deadline
 * fails with a {@link TimeoutException} and goes on in the background, and a create that
 * may have succeeded after its caller gave up is found by its protection id and deleted.
 */
final class ZooKeeperCalls {

	private static final Log logger = LogFactory.getLog(ZooKeeperCalls.class);

	private static final String EVENT_THREAD_CLASS = "org.apache.zookeeper.ClientCnxn$EventThread";

	private static final long RETRY_PAUSE_MILLIS = 10;

	/** What Curator's protected mode puts before a node's name, ahead of the id. */
	private static final String PROTECTED_PREFIX = "_c_";

	private static final byte[] NO_DATA = new byte[0];

	private static final int NEW_KEY_SCORE_LIMIT = 8;

	private final CuratorFramework client;

	/**
	 * The client's event thread, which delivers every reply: a call made on it would wait
	 * for its own reply. The client starts a new one with each new session; the replies
	 * tell which it is.
	 */
	private volatile @Nullable Thread eventThread;

	private final long callTimeoutNanos;

	private final CallDeadlines deadlines = new CallDeadlines();

	/**
	 * The protection ids of {@link #queue}: UUID-shaped, this provider's random high half
	 * and a counter, unique without asking the secure random generator per node.
	 */
	private final long protectionPrefix = ThreadLocalRandom.current().nextLong();

	private final AtomicLong protectionCounter = new AtomicLong();

	/**
	 * Above zero while most recently queued keys this provider had not queued lately were
	 * new (no lock node): {@link #queue} then sends the transaction that creates the key
	 * first.
	 */
	private volatile int newKeyScore;

	/**
	 * The lock nodes this provider queued in lately, for {@link #queue}: a slot per hash
	 * of a lock path holds that hash (high half) and when it was last queued in (low
	 * half, in units of {@value #RECENT_UNIT_SHIFT}-bit-shifted nanoseconds from
	 * {@link #origin}, about a second). A fixed {@value #RECENT_SLOTS} slots (1 MiB)
	 * whatever the number of keys: a key whose slot another key took is only guessed by
	 * {@link #newKeyScore}. Threads race on the slots, which only blurs a guess.
	 */
	private final long[] recentLockNodes = new long[RECENT_SLOTS];

	private final long origin = System.nanoTime();

	private static final int RECENT_SLOTS = 1 << 17;

	private static final int RECENT_UNIT_SHIFT = 30;

	/**
	 * How long a lock node queued in is taken to exist, in {@link #recentLockNodes}'
	 * units: about a minute, the servers' default interval between two reaps of empty
	 * containers ({@code znode.container.checkIntervalMs}). A node reaped sooner costs
	 * one transaction that fails and creates nothing.
	 */
	private static final long RECENT_UNITS = 56;

	/** Looks for the event thread of every new session. */
	private final ConnectionStateListener sessions = (source, state) -> {
		if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
			findEventThread();
		}
	};

	ZooKeeperCalls(CuratorFramework client, Duration callTimeout) {
		this.client = client;
		this.callTimeoutNanos = callTimeout.toNanos();
		client.getConnectionStateListenable().addListener(this.sessions);
		findEventThread();
	}

	/**
	 * Makes one background call, whose reply shows which thread is the event thread of
	 * the client's current session: the calls of acquisitions and releases are all
	 * synchronous, so they alone would never show it.
	 */
	private void findEventThread() {
		if (this.client.getState() != CuratorFrameworkState.STARTED) {
			return;
		}
		try {
			this.client.checkExists().inBackground(callback(new CompletableFuture<>())).forPath("/");
		}
		catch (Exception ex) {
			logger.debug("Could not look for the ZooKeeper client's event thread", ex);
		}
	}

	/**
	 * The deadline of a call made now on no acquisition's behalf (a renewal, a release, a
	 * health check): one call timeout from now. An acquisition's calls use
	 * {@link dev.distlock.core.spi.LockAttempt#deadlineNanos()} instead.
	 * @return the call's deadline
	 */
	long deadline() {
		return System.nanoTime() + this.callTimeoutNanos;
	}

	/**
	 * Waits for a connection until the deadline.
	 * @param until the deadline
	 * @throws IllegalStateException if the client is not started
	 * @throws TimeoutException if there was no connection by the deadline
	 */
	void awaitConnection(long until) throws InterruptedException, TimeoutException {
		if (this.client.getState() != CuratorFrameworkState.STARTED) {
			throw new IllegalStateException("The CuratorFramework of the zookeeper lock provider is "
					+ this.client.getState() + "; it must be started");
		}
		if (Thread.currentThread() == this.eventThread) {
			throw new IllegalStateException("Cannot lock on the ZooKeeper client's event thread (in a watcher or "
					+ "cache listener of the lock provider's client): replies arrive on that thread, so the call "
					+ "would wait for itself; hand the work to another thread");
		}
		if (!this.client.getZookeeperClient().isConnected()) {
			long millis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()));
			if (!this.client.blockUntilConnected((int) Math.min(millis, Integer.MAX_VALUE), TimeUnit.MILLISECONDS)) {
				throw new TimeoutException("No connection to ZooKeeper within " + millis + " ms");
			}
		}
	}

	/**
	 * Creates an ephemeral sequential node, and its missing parents as containers, in
	 * Curator's protected mode: a synchronous call on the caller's thread, bounded by the
	 * deadline (see {@link CallDeadlines}), with Curator's retries within it. A create
	 * whose reply was lost is found again by its protection id; one that fails or is cut
	 * off without an answer (the node may exist all the same) is left to Curator, which
	 * finds the node by its protection id and deletes it in the background, so a node
	 * granted to nobody does not wait in the queue until the session ends.
	 * <p>
	 * Used where {@link #queue} could not queue the node (the base path is missing, or a
	 * container was created or reaped meanwhile): Curator creates whatever parent is
	 * missing, as a container.
	 * @param path the node's path up to its sequence number
	 * @param data the node's data
	 * @param until the deadline
	 * @return the created node's path and creation zxid (0 if the reply did not carry it)
	 */
	Created createSequential(String path, byte[] data, long until) throws Exception {
		Stat stat = new Stat();
		String created = bounded("create", path, until,
				() -> this.client.create()
					.storingStatIn(stat)
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
					.forPath(path, data));
		return new Created(created, stat.getCzxid());
	}

	/**
	 * Queues a node and learns in the same reply whether it is alone in its lock: one
	 * transaction creates the node (ephemeral, sequential, with a protection id in its
	 * name as Curator's protected mode writes it) and touches the lock node's data, whose
	 * returned stat counts the lock node's children after the create. A lock nobody else
	 * holds or waits for thus costs one request to queue instead of a create and a read
	 * of the queue. Both writes carry the transaction's zxid, so the touched node's
	 * {@code mzxid} is the new node's {@code czxid}. A lock node that does not exist
	 * fails the transaction as a whole; it is then sent again with the creates of the
	 * key's node and the lock node as containers before the node's (a new key: two
	 * requests), or of the lock node alone if the key's node exists (another family of
	 * the key is in use). A lock node this provider queued in within about a minute (the
	 * servers' default interval between reaps of empty containers) is taken to exist; for
	 * any other key, while most such keys were new, the transaction for a new key goes
	 * first, so a new key costs one request, a key this provider used lately one, and a
	 * key only others used two.
	 * <p>
	 * A reply lost with the connection is looked for as Curator's protected mode would:
	 * once connected again, the queue is read and a child with the protection id is ours;
	 * without one the transaction is sent again, until the deadline. A transaction that
	 * fails otherwise, or is cut off at the deadline, may still have created the node: it
	 * is found by its protection id and deleted in the background.
	 * @param lockPath the lock node
	 * @param prefix the node's name up to its sequence number
	 * @param data the node's data
	 * @param until the deadline
	 * @return the queued node, or {@code null} if the base path does not exist or a
	 * container was created or reaped meanwhile (nothing was created: the caller creates
	 * the node with Curator's protected create, which makes the missing parents)
	 */
	@Nullable Queued queue(String lockPath, String prefix, byte[] data, long until) throws Exception {
		String protectionId = new UUID(this.protectionPrefix, this.protectionCounter.incrementAndGet()).toString();
		Op create = this.client.transactionOp()
			.create()
			.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
			.forPath(lockPath + "/" + PROTECTED_PREFIX + protectionId + "-" + prefix, data)
			.get();
		Op touch = this.client.transactionOp().setData().forPath(lockPath, NO_DATA).get();
		String keyPath = ZKPaths.getPathAndNode(lockPath).getPath();
		// a lock node this provider queued in lately still exists; for the others, guess
		// the shape from the recent keys: a lock per business object is mostly new keys,
		// a lock per resource mostly keys in use; a wrong guess costs one request that
		// fails and creates nothing
		int hash = spread(lockPath.hashCode());
		boolean known = queuedLately(hash);
		boolean newKeyFirst = !known && this.newKeyScore > 0;
		try {
			if (newKeyFirst) {
				try {
					return queued(hash, queueAsNewKey(keyPath, lockPath, create, touch, protectionId, until));
				}
				catch (KeeperException.NodeExistsException ex) {
					learn(false);
				}
			}
			try {
				// the lock node exists: a key in use or used lately
				Queued queued = multiQueue(List.of(create, touch), lockPath, protectionId, until);
				if (!newKeyFirst && !known) {
					learn(false);
				}
				return queued(hash, queued);
			}
			catch (KeeperException.NoNodeException ex) {
				// nothing was created; a lock node queued in lately was reaped since
				forget(hash);
			}
			if (!newKeyFirst) {
				try {
					return queued(hash, queueAsNewKey(keyPath, lockPath, create, touch, protectionId, until));
				}
				catch (KeeperException.NodeExistsException ex) {
					// the key's node exists: another family of the key is in use
				}
			}
			try {
				return queued(hash,
						multiQueue(List.of(container(lockPath), create, touch), lockPath, protectionId, until));
			}
			catch (KeeperException.NoNodeException | KeeperException.NodeExistsException ex) {
				// raced with the reaper or another process: left to Curator's create
				return null;
			}
		}
		catch (Exception ex) {
			// sent, and maybe applied: the node is found by its protection id
			deleteProtectedInBackground(lockPath, protectionId);
			throw ex;
		}
	}

	/**
	 * Queues a node of a new key: its node and its lock node are created as containers,
	 * reaped once empty, in the node's transaction.
	 * @return the node, or {@code null} if the base path is missing (nothing was created:
	 * Curator's create makes it)
	 * @throws KeeperException.NodeExistsException if the key's node exists (nothing was
	 * created)
	 */
	private @Nullable Queued queueAsNewKey(String keyPath, String lockPath, Op create, Op touch, String protectionId,
			long until) throws Exception {
		try {
			Queued queued = multiQueue(List.of(container(keyPath), container(lockPath), create, touch), lockPath,
					protectionId, until);
			learn(true);
			return queued;
		}
		catch (KeeperException.NoNodeException ex) {
			return null;
		}
	}

	private static int spread(int hash) {
		return (hash ^ (hash >>> 16)) * 0x9E3779B9;
	}

	private int slot(int hash) {
		return hash & (RECENT_SLOTS - 1);
	}

	private long now() {
		return (System.nanoTime() - this.origin) >>> RECENT_UNIT_SHIFT;
	}

	private boolean queuedLately(int hash) {
		long entry = this.recentLockNodes[slot(hash)];
		return entry != 0 && (int) (entry >>> 32) == hash && now() - (entry & 0xFFFFFFFFL) <= RECENT_UNITS;
	}

	/**
	 * Notes that the lock node of the hash exists; a {@code null} queued is passed on.
	 */
	private @Nullable Queued queued(int hash, @Nullable Queued queued) {
		if (queued != null) {
			this.recentLockNodes[slot(hash)] = ((long) hash << 32) | (now() & 0xFFFFFFFFL);
		}
		return queued;
	}

	private void forget(int hash) {
		this.recentLockNodes[slot(hash)] = 0;
	}

	/**
	 * Counts a queued key as new or in use, saturating at
	 * &plusmn;{@value #NEW_KEY_SCORE_LIMIT}; threads race on it, which only blurs a
	 * guess.
	 */
	private void learn(boolean newKey) {
		int score = this.newKeyScore;
		this.newKeyScore = newKey ? Math.min(score + 1, NEW_KEY_SCORE_LIMIT)
				: Math.max(score - 1, -NEW_KEY_SCORE_LIMIT);
	}

	private Op container(String path) throws Exception {
		return this.client.transactionOp().create().withMode(CreateMode.CONTAINER).forPath(path).get();
	}

	/**
	 * Sends one queueing transaction, whose last two operations are the create and the
	 * touch of the lock node. After a lost connection the queue is read once connected
	 * again: a node with the protection id is ours, and without one the transaction is
	 * sent again.
	 * @throws KeeperException.NoNodeException if a parent is missing (nothing created)
	 * @throws KeeperException.NodeExistsException if a container to create exists
	 * (nothing created)
	 */
	private Queued multiQueue(List<Op> ops, String lockPath, String protectionId, long until) throws Exception {
		while (true) {
			try {
				ZooKeeper zooKeeper = this.client.getZookeeperClient().getZooKeeper();
				List<OpResult> results = bounded("multi create", lockPath, until, () -> zooKeeper.multi(ops));
				String created = ((OpResult.CreateResult) results.get(ops.size() - 2)).getPath();
				Stat lock = ((OpResult.SetDataResult) results.get(ops.size() - 1)).getStat();
				return new Queued(new Created(lockPath + "/" + ZKPaths.getNodeFromPath(created), lock.getMzxid()),
						lock.getNumChildren() == 1);
			}
			catch (KeeperException.ConnectionLossException ex) {
				awaitConnection(until);
				String found;
				try {
					found = findProtected(children(lockPath, until), protectionId);
				}
				catch (KeeperException.NoNodeException missing) {
					found = null;
				}
				if (found != null) {
					return new Queued(new Created(lockPath + "/" + found, 0), false);
				}
			}
		}
	}

	private static @Nullable String findProtected(List<String> children, String protectionId) {
		for (String child : children) {
			if (child.startsWith(PROTECTED_PREFIX + protectionId)) {
				return child;
			}
		}
		return null;
	}

	/**
	 * Finds a node by its protection id and deletes it, in the background; a lost
	 * connection puts the search off until the client is connected again, and a lost
	 * session ends it (the node went with the session).
	 */
	private void deleteProtectedInBackground(String lockPath, String protectionId) {
		try {
			this.client.getChildren().inBackground((client, event) -> {
				int code = event.getResultCode();
				if (code == KeeperException.Code.OK.intValue()) {
					String found = findProtected(event.getChildren(), protectionId);
					if (found != null) {
						deleteInBackground(lockPath + "/" + found);
					}
				}
				else if (code == KeeperException.Code.CONNECTIONLOSS.intValue()) {
					whenConnected(() -> deleteProtectedInBackground(lockPath, protectionId));
				}
			}).forPath(lockPath);
		}
		catch (Exception ex) {
			logger.warn("Could not look for lock node " + lockPath + "/" + PROTECTED_PREFIX + protectionId
					+ "*; if it was created, it goes when its session ends", ex);
		}
	}

	/** Runs a task once the client is connected again, unless the session is lost. */
	private void whenConnected(Runnable task) {
		ConnectionStateListener once = new ConnectionStateListener() {
			@Override
			public void stateChanged(CuratorFramework client, ConnectionState state) {
				if (state == ConnectionState.RECONNECTED || state == ConnectionState.CONNECTED
						|| state == ConnectionState.LOST) {
					client.getConnectionStateListenable().removeListener(this);
					if (state != ConnectionState.LOST) {
						task.run();
					}
				}
			}
		};
		this.client.getConnectionStateListenable().addListener(once);
		if (this.client.getZookeeperClient().isConnected()) {
			this.client.getConnectionStateListenable().removeListener(once);
			task.run();
		}
	}

	/**
	 * A node queued by {@link #queue}.
	 *
	 * @param created the node
	 * @param alone whether it was the lock's only child when it was created, which grants
	 * it the lock whatever its type
	 */
	record Queued(Created created, boolean alone) {
	}

	/**
	 * The names of a node's children: a synchronous call on the caller's thread, bounded
	 * by the deadline (see {@link CallDeadlines}), and tried again after a lost
	 * connection until the deadline, as Curator's retry loop would.
	 * @param path the node
	 * @param until the deadline
	 * @return the names
	 */
	List<String> children(String path, long until) throws Exception {
		String serverPath = serverPath(path);
		while (true) {
			try {
				ZooKeeper zooKeeper = this.client.getZookeeperClient().getZooKeeper();
				return bounded("getChildren", path, until, () -> zooKeeper.getChildren(serverPath, false));
			}
			catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException
					| KeeperException.SessionMovedException ex) {
				// the client may not have noticed yet: give it a moment before asking
				// again
				long left = until - System.nanoTime();
				if (left <= 0) {
					throw ex;
				}
				Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(left), RETRY_PAUSE_MILLIS));
				awaitConnection(until);
			}
		}
	}

	/**
	 * Runs a synchronous call of the ZooKeeper client on this thread, interrupted if it
	 * has no reply by the deadline.
	 * @throws TimeoutException if the deadline passed first
	 */
	private <T> T bounded(String operation, String path, long until, Blocking<T> call) throws Exception {
		if (until - System.nanoTime() <= 0) {
			throw timeout(operation, path);
		}
		CallDeadlines.Call running = this.deadlines.start(until);
		T result;
		try {
			result = call.call();
		}
		catch (InterruptedException ex) {
			if (this.deadlines.end(running)) {
				throw timeout(operation, path);
			}
			throw ex;
		}
		catch (Exception ex) {
			this.deadlines.end(running);
			throw ex;
		}
		// a reply that came just as the deadline passed still counts
		this.deadlines.end(running);
		return result;
	}

	private static TimeoutException timeout(String operation, String path) {
		return new TimeoutException("ZooKeeper did not answer " + operation + " " + path
				+ " in time (bounded by the wait plus distlock.call-timeout)");
	}

	/** A synchronous call of the ZooKeeper client. */
	@FunctionalInterface
	private interface Blocking<T> {

		T call() throws Exception;

	}

	/**
	 * Whether a node exists, optionally leaving a watch on it.
	 * @param path the node
	 * @param watcher the watcher to leave, or {@code null}
	 * @param until the deadline
	 * @return the node's stat, or {@code null} if it does not exist
	 */
	@Nullable Stat exists(String path, @Nullable Watcher watcher, long until) throws Exception {
		CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
		if (watcher != null) {
			this.client.checkExists().usingWatcher(watcher).inBackground(callback(reply)).forPath(path);
		}
		else {
			this.client.checkExists().inBackground(callback(reply)).forPath(path);
		}
		CuratorEvent event = await(reply, "exists", path, until);
		return (event.getResultCode() == KeeperException.Code.NONODE.intValue()) ? null : event.getStat();
	}

	/**
	 * The creation zxids of some children of a node, asked for all at once.
	 * @param parent the parent node
	 * @param names the children's names
	 * @param until the deadline
	 * @return each child's czxid by name; children that no longer exist are left out
	 */
	Map<String, Long> creationZxids(String parent, List<String> names, long until) throws Exception {
		Map<String, CompletableFuture<CuratorEvent>> replies = new HashMap<>();
		for (String name : names) {
			CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
			this.client.checkExists().inBackground(callback(reply)).forPath(parent + "/" + name);
			replies.put(name, reply);
		}
		Map<String, Long> czxids = new HashMap<>();
		for (Map.Entry<String, CompletableFuture<CuratorEvent>> entry : replies.entrySet()) {
			CuratorEvent event = await(entry.getValue(), "exists", parent + "/" + entry.getKey(), until);
			if (event.getResultCode() != KeeperException.Code.NONODE.intValue()) {
				czxids.put(entry.getKey(), event.getStat().getCzxid());
			}
		}
		return czxids;
	}

	/**
	 * Sets a node's data.
	 * @param path the node
	 * @param data the data
	 * @param until the deadline
	 * @return {@code false} if the node does not exist
	 */
	boolean setData(String path, byte[] data, long until) throws Exception {
		CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
		this.client.setData().inBackground(callback(reply)).forPath(path, data);
		return await(reply, "setData", path, until).getResultCode() != KeeperException.Code.NONODE.intValue();
	}

	/**
	 * A node's path on the server, under the client's namespace, for calls made on the
	 * ZooKeeper handle itself. Plain concatenation: the paths are this provider's own,
	 * and ZooKeeper validates every path it is given (Curator's
	 * {@code ZKPaths.fixForNamespace} validates it once more, which was a quarter of the
	 * renewer's CPU at 100,000 held leases).
	 * @param path the path under the namespace, starting with {@code /}
	 * @return the path on the server
	 */
	private String serverPath(String path) {
		String namespace = this.client.getNamespace();
		return (namespace == null || namespace.isEmpty()) ? path : "/" + namespace + path;
	}

	/**
	 * Sends one transaction that checks that every node still exists: a write ordered
	 * through the leader, so an answer also proves the session alive there. It goes out
	 * in the background, so that the transactions of many batches are in flight together
	 * and a renewal pass costs the servers' throughput, not a round trip per batch; the
	 * answer is read with {@link #checked}.
	 * @param paths the nodes
	 * @return the pending answer
	 */
	Checks check(List<String> paths) throws Exception {
		List<Op> checks = new ArrayList<>(paths.size());
		for (String path : paths) {
			checks.add(Op.check(serverPath(path), -1));
		}
		// in the background: renewals are not in a hurry, and a synchronous call would
		// keep the deadlines' thread alive for as long as leases are held
		CompletableFuture<MultiReply> reply = new CompletableFuture<>();
		this.client.getZookeeperClient()
			.getZooKeeper()
			.multi(checks, (rc, path, ctx, results) -> reply.complete(new MultiReply(rc, results)), null);
		return new Checks(paths, reply);
	}

	/**
	 * Reads the answer to {@link #check}. A transaction stands or falls as a whole: one
	 * that failed because a node is gone is followed by one read-only {@code multi} of
	 * every node's data, whose operations answer one by one, so one more request tells
	 * which are gone (a node's path is never reused, so a node found then existed when
	 * the transaction ran).
	 * @param checks the pending answer
	 * @param until the deadline
	 * @return for each node, in order, whether it exists
	 * @throws Exception if there was no answer by the deadline or the transaction failed
	 * otherwise; the nodes are then unknown
	 */
	boolean[] checked(Checks checks, long until) throws Exception {
		List<String> paths = checks.paths();
		MultiReply answer;
		try {
			answer = checks.reply().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw timeout("multi check", paths.get(0));
		}
		boolean[] exists = new boolean[paths.size()];
		if (answer.rc() == KeeperException.Code.OK.intValue()) {
			Arrays.fill(exists, true);
			return exists;
		}
		if (firstMissing(answer.results()) < 0) {
			throw KeeperException.create(KeeperException.Code.get(answer.rc()), paths.get(0));
		}
		List<Op> reads = new ArrayList<>(paths.size());
		for (String path : paths) {
			reads.add(Op.getData(serverPath(path)));
		}
		CompletableFuture<MultiReply> read = new CompletableFuture<>();
		this.client.getZookeeperClient()
			.getZooKeeper()
			.multi(reads, (rc, path, ctx, results) -> read.complete(new MultiReply(rc, results)), null);
		MultiReply found;
		try {
			found = read.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw timeout("multi read", paths.get(0));
		}
		List<OpResult> results = found.results();
		// a read-only multi answers each read on its own; its overall code is the first
		// read's error, if any
		if (results == null || results.size() != paths.size()) {
			throw KeeperException.create(KeeperException.Code.get(found.rc()), paths.get(0));
		}
		for (int i = 0; i < exists.length; i++) {
			if (results.get(i) instanceof OpResult.ErrorResult error) {
				if (error.getErr() != KeeperException.Code.NONODE.intValue()) {
					throw KeeperException.create(KeeperException.Code.get(error.getErr()), paths.get(i));
				}
			}
			else {
				exists[i] = true;
			}
		}
		return exists;
	}

	/**
	 * A check transaction in flight.
	 *
	 * @param paths the nodes it checks
	 * @param reply its answer
	 */
	record Checks(List<String> paths, CompletableFuture<MultiReply> reply) {
	}

	/** The answer to a transaction sent in the background. */
	record MultiReply(int rc, @Nullable List<OpResult> results) {

		/**
		 * Whether the transaction failed because one of the nodes it checks is gone.
		 * @return whether a node was missing
		 */
		boolean nodeMissing() {
			return firstMissing(this.results) >= 0;
		}

	}

	/**
	 * The index of the check that failed a transaction because its node is gone, or -1 if
	 * it failed otherwise.
	 */
	private static int firstMissing(@Nullable List<OpResult> results) {
		if (results == null) {
			return -1;
		}
		for (int i = 0; i < results.size(); i++) {
			if (results.get(i) instanceof OpResult.ErrorResult error
					&& error.getErr() == KeeperException.Code.NONODE.intValue()) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Deletes a node in one try, without Curator's retries.
	 * @param path the node
	 * @param until the deadline
	 * @return {@code true} if the node is gone (deleted, or there was none);
	 * {@code false} if the call failed or got no reply by the deadline, so the node may
	 * still be there
	 * @throws InterruptedException if interrupted while waiting for the reply
	 */
	boolean deleteOnce(String path, long until) throws InterruptedException {
		try {
			ZooKeeper zooKeeper = this.client.getZookeeperClient().getZooKeeper();
			String serverPath = serverPath(path);
			bounded("delete", path, until, () -> {
				zooKeeper.delete(serverPath, -1);
				return null;
			});
			return true;
		}
		catch (KeeperException.NoNodeException ex) {
			return true;
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			logger.debug("Deleting lock node " + path + " failed", ex);
		}
		return false;
	}

	/**
	 * Deletes a node with Curator's guaranteed delete, which keeps retrying in the
	 * background, also after a reconnect, until the node is gone or the session ends.
	 * @param path the node
	 */
	void deleteInBackground(String path) {
		try {
			this.client.delete().quietly().guaranteed().inBackground().forPath(path);
		}
		catch (Exception ex) {
			logger.warn("Could not delete lock node " + path + "; it goes when its session ends", ex);
		}
	}

	/** Stops bounding calls: a synchronous call still running ends with its reply. */
	void close() {
		this.client.getConnectionStateListenable().removeListener(this.sessions);
		this.deadlines.close();
	}

	private BackgroundCallback callback(CompletableFuture<CuratorEvent> reply) {
		return (client, event) -> {
			Thread current = Thread.currentThread();
			// a reply found by Curator itself (a protected create after a lost reply) may
			// come on its own thread
			if (this.eventThread != current && current.getClass().getName().equals(EVENT_THREAD_CLASS)) {
				this.eventThread = current;
			}
			reply.complete(event);
		};
	}

	/**
	 * Waits for a reply until the deadline. A reply with an error fails, except "no
	 * node", which the callers take as an answer.
	 */
	private static CuratorEvent await(CompletableFuture<CuratorEvent> reply, String operation, String path, long until)
			throws Exception {
		CuratorEvent event;
		try {
			event = reply.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw timeout(operation, path);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
		int code = event.getResultCode();
		if (code != KeeperException.Code.OK.intValue() && code != KeeperException.Code.NONODE.intValue()) {
			throw KeeperException.create(KeeperException.Code.get(code), path);
		}
		return event;
	}

	/**
	 * A created node.
	 *
	 * @param path its full path
	 * @param czxid the zxid of the transaction that created it, or 0 if unknown
	 */
	record Created(String path, long czxid) {
	}

}
