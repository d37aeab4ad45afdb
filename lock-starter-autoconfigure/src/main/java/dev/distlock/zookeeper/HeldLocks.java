package dev.distlock.zookeeper;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The locks a provider holds, for the session handling ({@link SessionDoubt.Holds}): a
 * doubly linked list threaded through the held locks themselves, so holding a lock adds
 * two references to its {@link ZooKeeperHeldLock} instead of a hash table entry (a map
 * node and its slot, about 40 bytes a lease at 100,000 held leases). Nothing looks a lock
 * up here: a holder knows its lock, and the session handling only counts them and walks
 * them all. Every method is atomic under this object's monitor, which guards the links;
 * no lock's own monitor is taken here, and none is held while this one is.
 */
final class HeldLocks {

	private @Nullable ZooKeeperHeldLock first;

	private int count;

	/**
	 * Adds a lock just granted; a lock is added at most once.
	 * @param lock the lock, in no list
	 */
	synchronized void add(ZooKeeperHeldLock lock) {
		ZooKeeperHeldLock next = this.first;
		lock.previous = null;
		lock.next = next;
		if (next != null) {
			next.previous = lock;
		}
		this.first = lock;
		this.count++;
	}

	/**
	 * Removes a lock if it is here; removing it again does nothing.
	 * @param lock the lock
	 * @return whether it was here
	 */
	synchronized boolean remove(ZooKeeperHeldLock lock) {
		ZooKeeperHeldLock previous = lock.previous;
		ZooKeeperHeldLock next = lock.next;
		if (previous == null) {
			if (this.first != lock) {
				return false;
			}
			this.first = next;
		}
		else {
			previous.next = next;
		}
		if (next != null) {
			next.previous = previous;
		}
		lock.previous = null;
		lock.next = null;
		this.count--;
		return true;
	}

	/**
	 * One of the held locks, for a request that proves the session alive.
	 * @return a held lock, or {@code null} if none is held
	 */
	synchronized @Nullable ZooKeeperHeldLock any() {
		return this.first;
	}

	/**
	 * How many locks are here.
	 * @return the count
	 */
	synchronized int size() {
		return this.count;
	}

	/**
	 * The locks here now, most recently added first; later changes do not show in it.
	 * @return a copy of the list
	 */
	synchronized List<ZooKeeperHeldLock> snapshot() {
		List<ZooKeeperHeldLock> locks = new ArrayList<>(this.count);
		for (ZooKeeperHeldLock lock = this.first; lock != null; lock = lock.next) {
			locks.add(lock);
		}
		return locks;
	}

}
