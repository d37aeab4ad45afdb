package dev.distlock.core.internal;

/**
 * What a lease ({@link ManagedLease}) tells the code that made it, so that the lease
 * depends on nothing above it: the end of a hold (released or lost), the events listeners
 * observe, and that it needs the lease clock's attention. {@link LeaseTable} is the one
 * implementation. Generic in the lease's type, so that the host's contract names nothing
 * of the lease that reports to it.
 *
 * @param <L> the lease type
 */
interface LeaseHost<L> {

	/**
	 * The lease ended: its outermost hold was released, or it was lost. Called once per
	 * lease, before the backend release (if any) is sent, so that local bookkeeping never
	 * waits for the backend.
	 * @param lease the lease
	 */
	void ended(L lease);

	/**
	 * The backend release of a lease finished (or failed and was logged).
	 * @param lease the lease
	 * @param heldNanos time from grant to release
	 */
	void released(L lease, long heldNanos);

	/**
	 * The lease was lost while held.
	 * @param lease the lease
	 * @param reason what happened
	 */
	void lost(L lease, String reason);

	/**
	 * The lease was renewed or extended.
	 * @param lease the lease
	 */
	void renewed(L lease);

	/**
	 * Whether a lost lease interrupts the thread running the guarded work.
	 * @return {@code true} under {@code distlock.on-lease-lost=interrupt}
	 */
	boolean interruptOnLoss();

	/**
	 * The lease must be told when its time runs out although the watchdog does not renew
	 * it (someone listens for its loss): the host has the lease clock watch it. Called at
	 * most once per lease.
	 * @param lease the lease
	 */
	void watch(L lease);

}
