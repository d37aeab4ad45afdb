package dev.distlock.core.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import dev.distlock.core.Lease;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

/**
 * The re-entrant leases each thread acquired, so that the same thread re-acquires them
 * without a round trip. Only the owning thread reads or changes its holds (a lease
 * released from another thread is dropped the next time its owner looks, or in a purge),
 * so no lookup takes a shared lock. A thread holding a few leases keeps them in a small
 * array it scans, which hashes nothing; one holding more than {@value #INDEX_AT} (one
 * lock per tenant, partition or open order) switches to a hash index, so an acquisition
 * costs the same whether the thread holds ten leases or a hundred thousand.
 */
final class ReentryHolds {

	/** Leases a thread may hold before its holds are indexed by lock. */
	static final int INDEX_AT = 16;

	private final ThreadLocal<Holds> holds = ThreadLocal.withInitial(Holds::new);

	/**
	 * The calling thread's live lease on the lock, if any.
	 * @return the lease (possibly lost), or {@code null}
	 */
	@Nullable ManagedLease<?> find(LockProvider<?> provider, String key, LockType type) {
		return this.holds.get().find(provider, key, type);
	}

	void add(ManagedLease<?> lease) {
		this.holds.get().add(lease);
	}

	/** Ends the calling thread's claim on the lease (the lease itself stays held). */
	void remove(Lease lease) {
		this.holds.get().remove(lease);
	}

	/** One lock as a thread's index knows it. */
	private record Lock(LockProvider<?> provider, LockType type, String key) {

		static Lock of(ManagedLease<?> lease) {
			return new Lock(lease.provider(), lease.type(), lease.key());
		}

	}

	private static final class Holds {

		private ManagedLease<?>[] leases = new ManagedLease<?>[4];

		private int size;

		/** The holds by lock once there were more than {@link #INDEX_AT}; else null. */
		private @Nullable Map<Lock, ManagedLease<?>> index;

		/** Index size past which released leases are purged from it. */
		private int purgeAt;

		/** Look-ups in the index since its last purge. */
		private int lookups;

		@Nullable ManagedLease<?> find(LockProvider<?> provider, String key, LockType type) {
			Map<Lock, ManagedLease<?>> indexed = this.index;
			if (indexed != null) {
				if (++this.lookups >= indexed.size()) {
					// leases released meanwhile leave the index, at O(1) per look-up
					purge(indexed);
					if (this.index == null) {
						return find(provider, key, type);
					}
				}
				Lock lock = new Lock(provider, type, key);
				ManagedLease<?> lease = indexed.get(lock);
				if (lease != null && lease.state() == ManagedLease.RELEASED) {
					indexed.remove(lock);
					return null;
				}
				return lease;
			}
			for (int i = this.size - 1; i >= 0; i--) {
				ManagedLease<?> lease = this.leases[i];
				if (lease.state() == ManagedLease.RELEASED) {
					removeAt(i);
				}
				else if (lease.type() == type && lease.provider() == provider && lease.key().equals(key)) {
					return lease;
				}
			}
			return null;
		}

		void add(ManagedLease<?> lease) {
			Map<Lock, ManagedLease<?>> indexed = this.index;
			if (indexed != null) {
				indexed.put(Lock.of(lease), lease);
				if (indexed.size() > this.purgeAt) {
					purge(indexed);
				}
				return;
			}
			if (this.size == this.leases.length) {
				for (int i = this.size - 1; i >= 0; i--) {
					if (this.leases[i].state() == ManagedLease.RELEASED) {
						removeAt(i);
					}
				}
				if (this.size == this.leases.length) {
					if (this.size >= INDEX_AT) {
						index(lease);
						return;
					}
					this.leases = Arrays.copyOf(this.leases, this.size * 2);
				}
			}
			this.leases[this.size++] = lease;
		}

		void remove(Lease lease) {
			Map<Lock, ManagedLease<?>> indexed = this.index;
			if (indexed != null) {
				if (lease instanceof ManagedLease<?> managed) {
					indexed.remove(Lock.of(managed), managed);
				}
				return;
			}
			for (int i = this.size - 1; i >= 0; i--) {
				if (this.leases[i] == lease) {
					removeAt(i);
					return;
				}
			}
		}

		/** Moves the holds into an index, with one more. */
		private void index(ManagedLease<?> lease) {
			Map<Lock, ManagedLease<?>> indexed = new HashMap<>();
			for (int i = 0; i < this.size; i++) {
				indexed.put(Lock.of(this.leases[i]), this.leases[i]);
			}
			indexed.put(Lock.of(lease), lease);
			this.index = indexed;
			this.purgeAt = 2 * indexed.size();
			this.lookups = 0;
			this.leases = new ManagedLease<?>[4];
			this.size = 0;
		}

		/**
		 * Drops the released leases from the index, and goes back to the array once the
		 * thread holds few.
		 */
		private void purge(Map<Lock, ManagedLease<?>> indexed) {
			indexed.values().removeIf((held) -> held.state() == ManagedLease.RELEASED);
			this.lookups = 0;
			this.purgeAt = Math.max(INDEX_AT, 2 * indexed.size());
			if (indexed.size() <= INDEX_AT / 2) {
				this.index = null;
				this.leases = new ManagedLease<?>[INDEX_AT];
				this.size = 0;
				indexed.values().forEach((held) -> this.leases[this.size++] = held);
			}
		}

		private void removeAt(int index) {
			System.arraycopy(this.leases, index + 1, this.leases, index, this.size - index - 1);
			this.leases[--this.size] = null;
		}

	}

}
