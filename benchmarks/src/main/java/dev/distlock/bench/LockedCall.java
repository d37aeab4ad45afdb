package dev.distlock.bench;

/**
 * The guarded work of the aspect-overhead benchmarks: a method that only counts its
 * calls, made plainly ({@code plain-call}), inside {@code LockTemplate.execute}
 * ({@code distlock-local-template}) or through a {@code @DistributedLock} proxy
 * ({@code distlock-*-annotation}).
 */
public interface LockedCall {

	/**
	 * Does the (trivial) work on the key.
	 * @param key the key
	 */
	void call(String key);

}
