package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.LatchWaiter;
import dev.distlock.core.support.WakeUpSignal;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import org.jspecify.annotations.Nullable;

/**
 * Countdown latches on etcd, named {@code etcd}. A latch is the key
 * {@code <root>/latch/<encoded name>} (see {@link EtcdKeys}) whose value is the count,
 * attached to an etcd lease of its expiry (whole seconds, rounded up), so the servers
 * delete an abandoned latch by themselves. Setting it is a transaction that writes the
 * key only if it does not exist; a count-down is a transaction that writes the count less
 * one, or deletes the key at zero, only if the key was not modified since it was read
 * (retried when another count-down came first). Waiters watch the key from the revision
 * of their read, so no count-down is missed, and read it again at least every
 * {@link #RECHECK}. Every call is bounded by the call timeout.
 *
 * @since 0.3.0
 */
public final class EtcdLatchProvider implements LatchProvider {

	/** Longest sleep of a waiter between reads, in case a watch event was lost. */
	static final Duration RECHECK = Duration.ofSeconds(2);

	private final KV kv;

	private final Lease leases;

	private final Watch watch;

	private final EtcdKeys keys;

	private final long callTimeoutNanos;

	/**
	 * Creates a provider.
	 * @param client the jetcd client (the caller closes it)
	 * @param root the prefix of every key, as for locks
	 * @param callTimeout how long each call waits for etcd
	 */
	public EtcdLatchProvider(Client client, String root, Duration callTimeout) {
		Objects.requireNonNull(client, "client");
		if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) {
			throw new LockConfigurationException("The etcd call timeout must be positive, was " + callTimeout);
		}
		this.kv = client.getKVClient();
		this.leases = client.getLeaseClient();
		this.watch = client.getWatchClient();
		this.keys = new EtcdKeys(root);
		this.callTimeoutNanos = callTimeout.toNanos();
	}

	@Override
	public String name() {
		return "etcd";
	}

	@Override
	public boolean trySetCount(String latch, long count, Duration expiry) throws Exception {
		ByteSequence key = key(latch);
		long ttl = Math.max(1, (expiry.toMillis() + 999) / 1000);
		long lease = EtcdCalls.await(this.leases.grant(ttl), deadline(), "a lease grant for latch " + latch).getID();
		boolean created = EtcdCalls
			.await(this.kv.txn()
				.If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
				.Then(Op.put(key, bytes(count), PutOption.builder().withLeaseId(lease).build()))
				.commit(), deadline(), "the setting of latch " + latch)
			.isSucceeded();
		if (!created) {
			// nothing is attached to it; revoking only spares the servers its expiry
			this.leases.revoke(lease);
		}
		return created;
	}

	@Override
	public void countDown(String latch) throws Exception {
		ByteSequence key = key(latch);
		while (true) {
			KeyValue current = read(key, latch);
			if (current == null) {
				return;
			}
			long count = parse(current);
			Cmp unchanged = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(current.getModRevision()));
			Op change = (count <= 1) ? Op.delete(key, DeleteOption.DEFAULT)
					: Op.put(key, bytes(count - 1), PutOption.builder().withLeaseId(current.getLease()).build());
			if (EtcdCalls
				.await(this.kv.txn().If(unchanged).Then(change).commit(), deadline(), "a count-down of latch " + latch)
				.isSucceeded()) {
				return;
			}
			// another count-down came first: read again
		}
	}

	@Override
	public long count(String latch) throws Exception {
		KeyValue current = read(key(latch), latch);
		return (current != null) ? parse(current) : 0;
	}

	/**
	 * Watches the latch's key from the revision of each read: a count-down or the
	 * deletion wakes the waiter, which reads it again.
	 */
	@Override
	public boolean await(String latch, LatchWaiter waiter) throws Exception {
		ByteSequence key = key(latch);
		WakeUpSignal signal = new WakeUpSignal();
		while (true) {
			GetResponse response = EtcdCalls.await(this.kv.get(key), deadline(), "a read of latch " + latch);
			if (response.getKvs().isEmpty()) {
				return true;
			}
			long left = waiter.remaining().toNanos();
			if (left <= 0) {
				return false;
			}
			WatchOption from = WatchOption.builder().withRevision(response.getHeader().getRevision() + 1).build();
			try (Watch.Watcher watcher = this.watch.watch(key, from,
					Watch.listener((event) -> signal.signal(), (failure) -> signal.signal()))) {
				signal.await(Math.min(left, RECHECK.toNanos()));
			}
		}
	}

	private @Nullable KeyValue read(ByteSequence key, String latch) throws Exception {
		GetResponse response = EtcdCalls.await(this.kv.get(key), deadline(), "a read of latch " + latch);
		return response.getKvs().isEmpty() ? null : response.getKvs().get(0);
	}

	private long deadline() {
		return System.nanoTime() + this.callTimeoutNanos;
	}

	private ByteSequence key(String latch) {
		return EtcdKeys.bytes(this.keys.latch(latch));
	}

	private static ByteSequence bytes(long count) {
		return EtcdKeys.bytes(Long.toString(count));
	}

	private static long parse(KeyValue current) {
		return Long.parseLong(current.getValue().toString(StandardCharsets.UTF_8).trim());
	}

}
