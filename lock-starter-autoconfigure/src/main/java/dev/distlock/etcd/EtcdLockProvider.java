package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.core.support.WakeUpSignal;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The etcd backend, named {@code etcd}, on a jetcd {@link Client}. Every lock is a queue
 * of keys under {@code <root>/lock/<encoded key>/<family>/} (see {@link EtcdKeys}), one
 * per attempt, ordered by their creation revision: an attempt writes its entry and reads
 * the queue in one transaction, so an uncontended acquire is one round trip; a waiter
 * keeps its place while it waits and watches only the entry that blocks it, from the
 * revision of its last read, as etcd's own lock recipe does, so a release wakes one
 * waiter, not all of them. Ownership is the entry: its key holds the attempt's unique
 * owner token, so any thread may release, and no one deletes another's entry.
 * <p>
 * <b>Fencing</b>: the token is the creation revision of the granted entry. Revisions
 * increase strictly across the whole cluster, across leader changes and restarts (they
 * are part of the replicated, persisted state), and entries are granted in creation
 * order, so tokens increase per lock in acquisition order, also after the lock's last
 * entry was deleted. Only a cluster whose data is wiped, or restored from an older
 * snapshot, starts over.
 * <p>
 * <b>Leases</b>: every entry is attached to an etcd lease of about its own length (see
 * {@link EtcdLeases}), kept alive by the core's watchdog through {@link #renewAll}, which
 * also checks that every entry is still there; so a crashed process frees its locks
 * within its lease plus two seconds. etcd's leases count whole seconds, so the lease
 * itself is enforced in the holder's process, as for ZooKeeper: {@link #expiresLeases()}
 * is {@code false}, the core's lease clock watches every lease and releases one that ran
 * out, after reporting it lost. A renewal that finds the entry or its etcd lease gone
 * reports the lease lost.
 * <p>
 * <b>Bounds</b>: every call of an acquisition ends by
 * {@link LockAttempt#deadlineNanos()}; a renewal, a release and a health check by the
 * call timeout. An entry whose write's reply was lost, or that a waiter left, is deleted
 * in the background, retried until it succeeds, and once more if the write succeeds after
 * its caller gave up.
 *
 * @since 0.3.0
 */
public final class EtcdLockProvider implements LockProvider<EtcdHeldLock> {

	/** The call timeout used when none is given. */
	public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Longest sleep of a waiter between reads of its queue, in case a watch event was
	 * lost.
	 */
	static final Duration RECHECK = Duration.ofSeconds(2);

	private static final Duration RETRY_DELETE = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(EtcdLockProvider.class);

	private static final Set<LockType> TYPES = EnumSet.allOf(LockType.class);

	private static final AtomicInteger instances = new AtomicInteger();

	private static final GetOption QUEUE_READ = GetOption.builder()
		.isPrefix(true)
		.withKeysOnly(true)
		.withSortField(GetOption.SortTarget.CREATE)
		.withSortOrder(GetOption.SortOrder.ASCEND)
		.build();

	private static final GetOption HEAD_READ = GetOption.builder()
		.isPrefix(true)
		.withKeysOnly(true)
		.withSortField(GetOption.SortTarget.CREATE)
		.withSortOrder(GetOption.SortOrder.ASCEND)
		.withLimit(1)
		.build();

	private static final GetOption KEY_ONLY = GetOption.builder().withKeysOnly(true).build();

	private final KV kv;

	private final Watch watch;

	private final EtcdKeys keys;

	private final EtcdLeases leases;

	private final long callTimeoutNanos;

	/**
	 * This provider's name in the entries of exclusive locks: random, so unique across
	 * processes.
	 */
	private final String process;

	private final long recheckNanos;

	private final ScheduledThreadPoolExecutor background;

	private volatile boolean closed;

	private EtcdLockProvider(Builder builder) {
		this.kv = builder.client.getKVClient();
		this.watch = builder.client.getWatchClient();
		this.keys = new EtcdKeys(builder.root);
		this.leases = new EtcdLeases(builder.client.getLeaseClient(), this::leaseExpired);
		this.callTimeoutNanos = builder.callTimeout.toNanos();
		UUID random = UUID.randomUUID();
		this.process = Long.toUnsignedString(random.getMostSignificantBits() ^ random.getLeastSignificantBits(), 36);
		this.recheckNanos = builder.recheck.toNanos();
		this.background = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "distlock-etcd-" + instances.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.background.setRemoveOnCancelPolicy(true);
	}

	/**
	 * A builder of a provider on a client.
	 * @param client the jetcd client (the caller closes it)
	 * @return the builder
	 */
	public static Builder builder(Client client) {
		return new Builder(client);
	}

	@Override
	public String name() {
		return "etcd";
	}

	@Override
	public Set<LockType> supportedTypes() {
		return TYPES;
	}

	/**
	 * How long a renewal, a release or a health check waits for etcd.
	 * @return the call timeout
	 */
	public Duration callTimeout() {
		return Duration.ofNanos(this.callTimeoutNanos);
	}

	/**
	 * The mapping of keys to etcd keys this provider uses.
	 * @return the keys
	 */
	public EtcdKeys keys() {
		return this.keys;
	}

	/**
	 * Queues one entry and waits in place: the entry is written once and kept while the
	 * waiter watches the entry ahead of it, reading the queue again on every event and at
	 * least every {@link #RECHECK}, and keeping its etcd lease alive; if the entry
	 * vanished (its etcd lease expired, or an operator deleted it), a new one is queued.
	 * An entry that does not end up holding the lock is deleted before this returns, or
	 * in the background if a call failed or got no reply (or that delete does).
	 * <p>
	 * An exclusive lock's entry is named for this provider, not for the attempt (as
	 * etcd's own mutex names it for its session), so a key locked again and again reuses
	 * one etcd key instead of leaving a deleted key per acquisition in the servers' index
	 * until compaction, which every later read of the queue would step over. The core
	 * lets one attempt of a process at a time seek an exclusive lock; the write only
	 * creates an entry that is absent, and an attempt that finds the name taken (a hold
	 * that outlives its release, or an entry a late write left) queues under a name of
	 * its own instead; every delete of an entry names what it deletes (its value, which
	 * holds the attempt's owner token, or its creation revision), so a late call of one
	 * attempt never touches another's entry.
	 */
	@Override
	public @Nullable EtcdHeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
		long until = attempt.deadlineNanos();
		LockType type = attempt.type();
		String queue = this.keys.queue(attempt.key(), type);
		ByteSequence prefix = EtcdKeys.bytes(queue);
		boolean exclusive = isExclusive(type);
		ByteSequence own = EtcdKeys.bytes(EtcdKeys.entry(queue, type, exclusive ? this.process : attempt.owner()));
		ByteSequence data = data(attempt, attempt.lease());
		int queueLength = prefix.size();
		WakeUpSignal wakeup = null;
		List<Watch.Watcher> watchers = null;
		boolean queued = false;
		boolean granted = false;
		boolean answered = true;
		try {
			EtcdLeases.Grant grant = null;
			GetResponse snapshot = null;
			while (true) {
				if (snapshot == null) {
					grant = this.leases.forLease(attempt.lease(), until);
					queued = true;
					attempt.markSent();
					snapshot = enqueue(prefix, own, data, grant, exclusive, until);
					if (snapshot == null) {
						// the name is taken: a hold of this process that outlives its
						// release (hold-at-least), or an entry a late write left, which
						// its own cleanup deletes; queue under a name of the attempt
						own = EtcdKeys.bytes(EtcdKeys.entry(queue, type, attempt.owner()));
						continue;
					}
				}
				EtcdQueue.Position position = EtcdQueue.position(snapshot.getKvs(), own, queueLength, type,
						attempt.permits());
				if (position == null) {
					// our entry is gone (its etcd lease expired, or an operator deleted
					// it): queue again at the back
					snapshot = null;
					continue;
				}
				if (position.granted()) {
					// after a long wait the waiter's etcd lease may have less left than
					// the lock's lease
					boolean alive = this.leases.keepAliveToOutlive(grant, attempt.lease(), until);
					if (!alive || (position.announce() && !touch(own, data, grant, position.token(), until))) {
						snapshot = null;
						continue;
					}
					EtcdHeldLock lock = new EtcdHeldLock(attempt, own, position.token(), grant);
					grant.add(lock);
					granted = true;
					return lock;
				}
				if (waiter.isTryOnce() || waiter.remaining().isZero()) {
					return null;
				}
				if (wakeup == null) {
					wakeup = new WakeUpSignal();
					watchers = new ArrayList<>();
				}
				long from = snapshot.getHeader().getRevision() + 1;
				WakeUpSignal signal = wakeup;
				for (ByteSequence blocking : position.watch()) {
					watchers.add(this.watch.watch(blocking, WatchOption.builder().withRevision(from).build(),
							Watch.listener((response) -> signal.signal(), (failure) -> signal.signal())));
				}
				long remaining = waiter.remaining().toNanos();
				wakeup.await(Math.min(remaining, Math.min(this.recheckNanos, grant.ttlNanos / 3)));
				closeAll(watchers);
				this.leases.keepAliveIfDue(grant, until);
				attempt.markSent();
				snapshot = EtcdCalls.await(this.kv.get(prefix, QUEUE_READ), until, "a read of queue ", queue);
			}
		}
		catch (Exception ex) {
			answered = false;
			throw ex;
		}
		finally {
			if (watchers != null) {
				closeAll(watchers);
			}
			if (queued && !granted) {
				// a left entry would stand in front of this process's next attempt: gone
				// before this returns
				Cmp ours = valueIs(own, data);
				if (answered) {
					delete(own, ours, until);
				}
				else {
					deleteInBackground(own, ours);
				}
			}
		}
	}

	private static boolean isExclusive(LockType type) {
		return type == LockType.MUTEX || type == LockType.FAIR || type == LockType.WRITE;
	}

	/**
	 * Writes the entry unless it exists and reads the queue in one transaction: all of
	 * it, or for an exclusive lock its head only, and the rest in a second read only if
	 * the entry is not the head. If the reply does not come in time, the entry is deleted
	 * again once the call completes, however it completes: a transaction the servers
	 * applied after the caller gave up (and after its cleanup ran) may still fail on the
	 * way back, and its entry would head the queue on an etcd lease the process keeps
	 * alive.
	 * @return the queue, or {@code null} if the entry existed already (see
	 * {@link #acquire}) and nothing was written
	 */
	private @Nullable GetResponse enqueue(ByteSequence prefix, ByteSequence own, ByteSequence data,
			EtcdLeases.Grant grant, boolean exclusive, long until) throws Exception {
		CompletableFuture<TxnResponse> call = this.kv.txn()
			.If(new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
			.Then(Op.put(own, data, grant.putOption), Op.get(prefix, exclusive ? HEAD_READ : QUEUE_READ))
			.commit();
		TxnResponse reply;
		try {
			reply = EtcdCalls.await(call, until, "the queueing of ", own);
		}
		catch (Exception ex) {
			call.whenComplete((late, failure) -> deleteInBackground(own, valueIs(own, data)));
			throw ex;
		}
		if (!reply.isSucceeded()) {
			return null;
		}
		GetResponse read = reply.getGetResponses().get(0);
		if (exclusive && (read.getKvs().isEmpty() || !read.getKvs().get(0).getKey().equals(own))) {
			return EtcdCalls.await(this.kv.get(prefix, QUEUE_READ), until, "a read of queue ", prefix);
		}
		return read;
	}

	/**
	 * Writes a granted entry again, unchanged, to wake the successor that watches it;
	 * fails if it is gone.
	 */
	private boolean touch(ByteSequence own, ByteSequence data, EtcdLeases.Grant grant, long token, long until)
			throws Exception {
		return EtcdCalls
			.await(this.kv.txn()
				.If(new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(token)))
				.Then(Op.put(own, data, grant.putOption))
				.commit(), until, "the announcement of ", own)
			.isSucceeded();
	}

	private static void closeAll(List<Watch.Watcher> watchers) {
		watchers.forEach(Watch.Watcher::close);
		watchers.clear();
	}

	@Override
	public boolean renew(EtcdHeldLock lock, Duration lease) throws Exception {
		RenewalOutcome outcome = renewAll(List.of(lock), lease)[0];
		Exception failure = outcome.failure();
		if (failure != null) {
			throw failure;
		}
		return outcome.isRenewed();
	}

	/**
	 * Keeps every etcd lease of the batch alive once and reads every entry, all at once:
	 * an entry is renewed if its etcd lease is alive and the entry is still the one
	 * granted (same creation revision). An entry whose etcd lease is shorter than the new
	 * lease is moved to a longer one instead, by a write that only succeeds if the entry
	 * is still the one granted.
	 */
	@Override
	public RenewalOutcome[] renewAll(List<EtcdHeldLock> locks, Duration lease) {
		long until = System.nanoTime() + this.callTimeoutNanos;
		RenewalOutcome[] outcomes = new RenewalOutcome[locks.size()];
		Map<EtcdLeases.Grant, CompletableFuture<Boolean>> keepAlives = new HashMap<>();
		List<CompletableFuture<Boolean>> checks = new ArrayList<>(locks.size());
		List<EtcdLeases.Grant> moves = new ArrayList<>(locks.size());
		for (EtcdHeldLock lock : locks) {
			EtcdLeases.Grant grant = lock.grant();
			if (lock.isFinished()) {
				checks.add(CompletableFuture.completedFuture(false));
				moves.add(null);
			}
			else if (grant.covers(lease)) {
				CompletableFuture<Boolean> alive = keepAlives.computeIfAbsent(grant, this.leases::keepAlive);
				checks.add(alive.thenCombine(this.kv.get(lock.entry(), KEY_ONLY),
						(live, entry) -> live && isGranted(entry.getKvs(), lock)));
				moves.add(null);
			}
			else {
				EtcdLeases.Grant longer;
				try {
					longer = this.leases.forLease(lease, until);
				}
				catch (Exception ex) {
					checks.add(CompletableFuture.failedFuture(ex));
					moves.add(null);
					continue;
				}
				checks.add(this.kv.txn()
					.If(new Cmp(lock.entry(), Cmp.Op.EQUAL, CmpTarget.createRevision(lock.fencingToken())))
					.Then(Op.put(lock.entry(), data(lock.attempt(), lease), longer.putOption))
					.commit()
					.thenApply(TxnResponse::isSucceeded));
				moves.add(longer);
			}
		}
		for (int i = 0; i < outcomes.length; i++) {
			EtcdHeldLock lock = locks.get(i);
			try {
				boolean held = EtcdCalls.await(checks.get(i), until, "the renewal of ", lock.entry());
				EtcdLeases.Grant moved = moves.get(i);
				if (held && moved != null) {
					lock.movedTo(moved);
				}
				if (!held) {
					lock.finish();
				}
				outcomes[i] = RenewalOutcome.of(held && !lock.isFinished());
			}
			catch (Exception ex) {
				outcomes[i] = RenewalOutcome.failed(ex);
			}
		}
		return outcomes;
	}

	private static boolean isGranted(List<KeyValue> entries, EtcdHeldLock lock) {
		return !entries.isEmpty() && entries.get(0).getCreateRevision() == lock.fencingToken();
	}

	/**
	 * Deletes the entry if it is still the one granted (same creation revision), waiting
	 * at most the call timeout; if that fails or gets no reply in time, the delete is
	 * retried in the background until it succeeds, and the entry's etcd lease ends it at
	 * the latest once no renewal keeps it alive.
	 */
	@Override
	public void release(EtcdHeldLock lock) {
		lock.finish();
		ByteSequence entry = lock.entry();
		delete(entry, new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(lock.fencingToken())),
				System.nanoTime() + this.callTimeoutNanos);
	}

	/**
	 * Deletes an entry of ours if the guard holds, waiting for the reply until the
	 * deadline; if the delete fails or gets no reply by then, it is retried in the
	 * background.
	 */
	private void delete(ByteSequence entry, Cmp guard, long until) {
		try {
			EtcdCalls.await(deleteIf(entry, guard), until, "the deletion of ", entry);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			deleteInBackground(entry, guard);
		}
		catch (Exception ex) {
			logger.debug("Deletion of " + entry + " failed; retrying in the background", ex);
			deleteInBackground(entry, guard);
		}
	}

	/**
	 * Deletes the attempt's entry in the background, in case its write succeeded without
	 * the reply arriving.
	 */
	@Override
	public void abandon(LockAttempt attempt) {
		String queue = this.keys.queue(attempt.key(), attempt.type());
		ByteSequence data = data(attempt, attempt.lease());
		ByteSequence entry = EtcdKeys.bytes(EtcdKeys.entry(queue, attempt.type(), attempt.owner()));
		deleteInBackground(entry, valueIs(entry, data));
		if (isExclusive(attempt.type())) {
			ByteSequence named = EtcdKeys.bytes(EtcdKeys.entry(queue, attempt.type(), this.process));
			deleteInBackground(named, valueIs(named, data));
		}
	}

	/**
	 * The guard of a delete of an entry an attempt wrote: its value, which holds the
	 * attempt's owner token.
	 */
	private static Cmp valueIs(ByteSequence entry, ByteSequence data) {
		return new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.value(data));
	}

	private CompletableFuture<TxnResponse> deleteIf(ByteSequence entry, Cmp guard) {
		return this.kv.txn().If(guard).Then(Op.delete(entry, DeleteOption.DEFAULT)).commit();
	}

	private void deleteInBackground(ByteSequence entry, Cmp guard) {
		if (this.closed) {
			return;
		}
		deleteIf(entry, guard).orTimeout(this.callTimeoutNanos, TimeUnit.NANOSECONDS)
			.whenComplete((deleted, failure) -> {
				if (failure != null && !this.closed) {
					try {
						this.background.schedule(() -> deleteInBackground(entry, guard), RETRY_DELETE.toMillis(),
								TimeUnit.MILLISECONDS);
					}
					catch (RejectedExecutionException ex) {
						// closed meanwhile
					}
				}
			});
	}

	private void leaseExpired(EtcdLeases.Grant grant) {
		for (EtcdHeldLock lock : List.copyOf(grant.locks())) {
			if (lock.finish()) {
				lock.attempt().reportLost("its etcd " + grant + " expired, and the lock's key with it");
			}
		}
	}

	private static ByteSequence data(LockAttempt attempt, Duration lease) {
		// the key goes last: everything after "key=" is the key, whatever characters it
		// holds
		return EtcdKeys.bytes("owner=" + attempt.owner() + "\nlease=" + lease + "\nkey=" + attempt.key());
	}

	/**
	 * {@code false}: etcd leases count whole seconds, so the core's lease clock ends this
	 * provider's leases on time and releases them here.
	 */
	@Override
	public boolean expiresLeases() {
		return false;
	}

	/**
	 * Health check: a linearizable read of the root key itself (one key, which distlock
	 * never writes), which needs a leader and a quorum and writes nothing, bounded by the
	 * call timeout.
	 * @param probe unused: the check touches no lock
	 */
	@Override
	public void checkHealth(LockAttempt probe) throws Exception {
		EtcdCalls.await(this.kv.get(EtcdKeys.bytes(this.keys.root()), GetOption.builder().withCountOnly(true).build()),
				System.nanoTime() + this.callTimeoutNanos, "a health check");
	}

	/**
	 * Stops the background deletes. Locks still held keep their entries until released or
	 * until their etcd leases expire.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.background.shutdownNow();
	}

	@Override
	public String toString() {
		return "EtcdLockProvider[" + this.keys.root() + "]";
	}

	/**
	 * Builds an {@link EtcdLockProvider}.
	 */
	public static final class Builder {

		private final Client client;

		private String root = EtcdKeys.DEFAULT_ROOT;

		private Duration callTimeout = DEFAULT_CALL_TIMEOUT;

		private Duration recheck = RECHECK;

		private Builder(Client client) {
			this.client = Objects.requireNonNull(client, "client");
		}

		/**
		 * The prefix every key of this provider starts with
		 * ({@value EtcdKeys#DEFAULT_ROOT} by default).
		 * @param root the prefix, without a trailing {@code /}
		 * @return this builder
		 */
		public Builder root(String root) {
			this.root = root;
			return this;
		}

		/**
		 * How long a renewal, a release or a health check waits for etcd
		 * ({@code distlock.call-timeout}, 1 s by default); an acquisition's calls end by
		 * its wait plus this.
		 * @param callTimeout the timeout, positive
		 * @return this builder
		 */
		public Builder callTimeout(Duration callTimeout) {
			if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) {
				throw new LockConfigurationException("The etcd call timeout must be positive, was " + callTimeout);
			}
			this.callTimeout = callTimeout;
			return this;
		}

		Builder recheck(Duration recheck) {
			this.recheck = recheck;
			return this;
		}

		/**
		 * Builds the provider.
		 * @return the provider
		 * @throws LockConfigurationException if the root is invalid
		 */
		public EtcdLockProvider build() {
			return new EtcdLockProvider(this);
		}

	}

}
