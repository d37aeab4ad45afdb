package dev.distlock.core.spi;

/**
 * A backend's handle on a lock it granted: what {@link LockProvider#renew} and
 * {@link LockProvider#release} are given back. Backends implement it (usually as a
 * record) with whatever they need to find their lock again, typically the
 * {@link LockAttempt} it was granted to.
 *
 * @since 0.1.0
 */
public interface HeldLock {

	/**
	 * The fencing token the backend handed out with this grant.
	 * @return the token, strictly increasing per lock
	 */
	long fencingToken();

}
