package dev.distlock.bench;

/**
 * One way of locking that the benchmarks measure: a client library, a configuration of
 * it, or distlock through one of its entry points. Thread-safe; one instance per JVM
 * serves all benchmark threads, as an application's client would. Every acquisition waits
 * up to {@link BenchConfig#WAIT} and leases for {@link BenchConfig#LEASE}.
 */
public interface Subject extends AutoCloseable {

	/**
	 * Acquires the lock of the key, waiting for it.
	 * @param key the key; it contains the run id, so no other run uses it
	 * @return the hold, to unlock on the same thread
	 * @throws Exception if the lock could not be had
	 */
	Hold lock(String key) throws Exception;

	/**
	 * One critical section with an empty body: acquire, then release. Subjects whose
	 * natural use is a callback ({@code LockTemplate.execute}, an annotated method)
	 * override this.
	 * @param key the key
	 * @throws Exception if the lock could not be had
	 */
	default void cycle(String key) throws Exception {
		lock(key).unlock();
	}

	/**
	 * Whether the thread holding a lock can acquire it again.
	 * @return {@code true} if re-entrant
	 */
	default boolean reentrant() {
		return true;
	}

	@Override
	void close() throws Exception;

	/** A held lock. */
	@FunctionalInterface
	interface Hold {

		/**
		 * Releases the lock.
		 * @throws Exception if the release failed
		 */
		void unlock() throws Exception;

	}

}
