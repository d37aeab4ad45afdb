package dev.distlock.core;

/**
 * The kinds of lock distlock offers. Every backend supports the types it lists in
 * {@code LockProvider.supportedTypes()}; asking for another fails with
 * {@link LockConfigurationException}.
 *
 * @since 0.1.0
 */
public enum LockType {

	/**
	 * Exclusive and reentrant: one holder per key; the holding thread may acquire it
	 * again without a round trip.
	 */
	MUTEX(true, true),

	/**
	 * Exclusive, reentrant and first-come first-served: waiters acquire in the order they
	 * started waiting.
	 */
	FAIR(true, true),

	/**
	 * Shared with other readers of the same key, excluded by a writer. Reentrant for the
	 * holding thread.
	 */
	READ(false, true),

	/**
	 * Exclusive against readers and other writers of the same key. Reentrant for the
	 * holding thread.
	 */
	WRITE(true, true),

	/**
	 * At most {@code permits} holders at once; every acquisition takes one permit (not
	 * reentrant).
	 */
	SEMAPHORE(false, false);

	private final boolean exclusive;

	private final boolean reentrant;

	LockType(boolean exclusive, boolean reentrant) {
		this.exclusive = exclusive;
		this.reentrant = reentrant;
	}

	/**
	 * Whether a holder excludes every other holder of the key.
	 * @return {@code true} for MUTEX, FAIR and WRITE
	 */
	public boolean isExclusive() {
		return this.exclusive;
	}

	/**
	 * Whether the holding thread re-acquires without a backend round trip.
	 * @return {@code false} only for SEMAPHORE
	 */
	public boolean isReentrant() {
		return this.reentrant;
	}

}
