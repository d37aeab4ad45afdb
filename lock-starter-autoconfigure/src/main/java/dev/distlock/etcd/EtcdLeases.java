package dev.distlock.etcd;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.options.PutOption;

/**
 * The etcd leases of one provider: one per lease length, in whole seconds, shared by
 * every entry of that length, so a process needs a handful of etcd leases however many
 * locks it holds. An etcd lease's time-to-live is the lock's lease rounded up to a
 * second, plus one second; an entry is attached to a lease only while that lease, counted
 * from when its last grant or keep-alive was sent, outlives the entry's own lease, else a
 * new etcd lease of that length is granted. So an entry never disappears before its lease
 * is over unless nobody keeps it alive, and a crashed process's entries disappear at most
 * its lease plus two seconds (and the servers' half-second expiry check) later.
 * <p>
 * Nothing here keeps a lease alive by itself: the core's watchdog does, through the
 * provider's renewals, and a waiter does while it waits. A keep-alive answered with no
 * time left means the lease, and every entry on it, is gone.
 */
final class EtcdLeases {

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	/**
	 * Time between judging a lease long enough and sending the request that attaches an
	 * entry to it.
	 */
	private static final long MARGIN = TimeUnit.MILLISECONDS.toNanos(100);

	private final Lease client;

	private final Consumer<Grant> expired;

	private final Map<Long, Grant> current = new ConcurrentHashMap<>();

	/**
	 * Creates the leases of a provider.
	 * @param client jetcd's lease client
	 * @param expired called once for a lease found gone, with the locks still on it
	 */
	EtcdLeases(Lease client, Consumer<Grant> expired) {
		this.client = client;
		this.expired = expired;
	}

	/**
	 * An etcd lease an entry with this lease may be attached to now: the current one of
	 * its length, kept alive first if what it has left is too short, or a new one if it
	 * is gone. Keeping the current one alive (the leader answers it alone) rather than
	 * granting another (a write every member commits) also leaves one etcd lease per
	 * length on the servers, not one per second of use.
	 * @param lease the entry's lease
	 * @param until the deadline of the grant call, if one is needed
	 * @return the etcd lease
	 * @throws Exception if a grant failed or timed out
	 */
	Grant forLease(Duration lease, long until) throws Exception {
		long leaseNanos = lease.toNanos();
		long ttl = ttlSeconds(leaseNanos);
		Grant grant = this.current.get(ttl);
		if (grant != null && grant.outlives(leaseNanos, System.nanoTime())) {
			return grant;
		}
		if (grant != null && !grant.dead && EtcdCalls.await(keepAlive(grant), until, "a lease keep-alive")
				&& grant.outlives(leaseNanos, System.nanoTime())) {
			return grant;
		}
		long sent = System.nanoTime();
		long id = EtcdCalls.await(this.client.grant(ttl), until, "a lease grant of " + ttl + " s").getID();
		// the servers may raise a short time-to-live to their minimum: that only keeps
		// the lease reusable longer
		Grant fresh = new Grant(id, ttl * SECOND, sent);
		this.current.put(ttl, fresh);
		return fresh;
	}

	/**
	 * Keeps a lease alive once.
	 * @param grant the lease
	 * @return the call, completing with whether the lease is still alive
	 */
	CompletableFuture<Boolean> keepAlive(Grant grant) {
		long sent = System.nanoTime();
		return this.client.keepAliveOnce(grant.id).handle((response, failure) -> {
			if (failure == null && response.getTTL() > 0) {
				grant.refreshed(sent);
				return true;
			}
			if (failure != null && !isNotFound(failure)) {
				throw (failure instanceof RuntimeException runtime) ? runtime : new IllegalStateException(failure);
			}
			gone(grant);
			return false;
		});
	}

	/**
	 * Makes sure an entry granted now keeps its etcd lease for the whole of its own
	 * lease: keeps the etcd lease alive unless it lives long enough already.
	 * @param grant the entry's etcd lease
	 * @param lease the entry's lease, counted from now
	 * @param until the deadline of the keep-alive
	 * @return {@code false} if the etcd lease is gone
	 * @throws Exception if the keep-alive failed
	 */
	boolean keepAliveToOutlive(Grant grant, Duration lease, long until) throws Exception {
		if (grant.outlives(lease.toNanos(), System.nanoTime())) {
			return true;
		}
		return EtcdCalls.await(keepAlive(grant), until, "a lease keep-alive");
	}

	/**
	 * Keeps a waiter's lease alive when a third of it passed since it was last refreshed.
	 * @param grant the waiter's lease
	 * @param until the deadline of the keep-alive
	 * @throws Exception if the keep-alive failed
	 */
	void keepAliveIfDue(Grant grant, long until) throws Exception {
		if (System.nanoTime() - grant.refreshedNanos > grant.ttlNanos / 3) {
			EtcdCalls.await(keepAlive(grant), until, "a lease keep-alive");
		}
	}

	private void gone(Grant grant) {
		if (grant.markDead()) {
			this.current.values().remove(grant);
			this.expired.accept(grant);
		}
	}

	private static boolean isNotFound(Throwable failure) {
		String message = String.valueOf(failure.getMessage());
		return message.contains("lease not found") || message.contains("requested lease not found");
	}

	static long ttlSeconds(long leaseNanos) {
		return (leaseNanos + SECOND - 1) / SECOND + 1;
	}

	/** One etcd lease and the locks attached to it. */
	static final class Grant {

		final long id;

		final long ttlNanos;

		/** The option that attaches a written key to this lease. */
		final PutOption putOption;

		private volatile long refreshedNanos;

		private volatile boolean dead;

		private final Set<EtcdHeldLock> locks = ConcurrentHashMap.newKeySet();

		Grant(long id, long ttlNanos, long refreshedNanos) {
			this.id = id;
			this.ttlNanos = ttlNanos;
			this.putOption = PutOption.builder().withLeaseId(id).build();
			this.refreshedNanos = refreshedNanos;
		}

		/**
		 * Whether an entry attached now with this lease would not outlast it: the etcd
		 * lease, counted from the last grant or keep-alive sent, lives at least as long.
		 */
		boolean outlives(long leaseNanos, long now) {
			return !this.dead && this.refreshedNanos + this.ttlNanos - now >= leaseNanos + MARGIN;
		}

		/**
		 * Whether a keep-alive sent now keeps an entry with this lease for all of it.
		 */
		boolean covers(Duration lease) {
			return this.ttlNanos >= lease.toNanos();
		}

		private void refreshed(long sentNanos) {
			if (sentNanos - this.refreshedNanos > 0) {
				this.refreshedNanos = sentNanos;
			}
		}

		private synchronized boolean markDead() {
			if (this.dead) {
				return false;
			}
			this.dead = true;
			return true;
		}

		void add(EtcdHeldLock lock) {
			this.locks.add(lock);
		}

		void remove(EtcdHeldLock lock) {
			this.locks.remove(lock);
		}

		Set<EtcdHeldLock> locks() {
			return this.locks;
		}

		@Override
		public String toString() {
			return "etcd lease " + Long.toHexString(this.id);
		}

	}

}
