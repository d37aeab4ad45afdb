package dev.distlock.core.internal;

import java.util.Arrays;

import dev.distlock.core.Lease;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

/**
 * The re-entrant leases each thread acquired, so that the same thread re-acquires them
 * without a round trip. Only the owning thread reads or changes its list (a lease
 * released from another thread is dropped the next time its owner looks), so no lookup
 * takes a shared lock or hashes a key.
 */
final class ReentryHolds {

	private final ThreadLocal<Holds> holds = ThreadLocal.withInitial(Holds::new);

	/**
	 * The calling thread's live lease on the lock, if any.
	 * @return the lease (possibly lost), or {@code null}
	 */
	@Nullable ManagedLease<?> find(LockProvider<?> provider, String key, LockType type) {
		Holds mine = this.holds.get();
		for (int i = mine.size - 1; i >= 0; i--) {
			ManagedLease<?> lease = mine.leases[i];
			if (lease.state() == ManagedLease.RELEASED) {
				mine.removeAt(i);
			}
			else if (lease.type() == type && lease.provider() == provider && lease.key().equals(key)) {
				return lease;
			}
		}
		return null;
	}

	void add(ManagedLease<?> lease) {
		this.holds.get().add(lease);
	}

	/** Ends the calling thread's claim on the lease (the lease itself stays held). */
	void remove(Lease lease) {
		Holds mine = this.holds.get();
		for (int i = mine.size - 1; i >= 0; i--) {
			if (mine.leases[i] == lease) {
				mine.removeAt(i);
				return;
			}
		}
	}

	private static final class Holds {

		private ManagedLease<?>[] leases = new ManagedLease<?>[4];

		private int size;

		void add(ManagedLease<?> lease) {
			if (this.size == this.leases.length) {
				for (int i = this.size - 1; i >= 0; i--) {
					if (this.leases[i].state() == ManagedLease.RELEASED) {
						removeAt(i);
					}
				}
				if (this.size == this.leases.length) {
					this.leases = Arrays.copyOf(this.leases, this.size * 2);
				}
			}
			this.leases[this.size++] = lease;
		}

		void removeAt(int index) {
			System.arraycopy(this.leases, index + 1, this.leases, index, this.size - index - 1);
			this.leases[--this.size] = null;
		}

	}

}
