package dev.distlock.zookeeper;

import java.util.Collection;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Ends the holds whose lease ran out before it was renewed or released. A ZooKeeper node has no expiry of its own: it
 * lives as long as its holder's session, so without this a holder that keeps its session but stops renewing (a stuck
 * thread, a fixed lease the work outlasted) would keep the lock for good. Until the core's lease clock ends leases on
 * every backend itself, this sweep does it for the ZooKeeper provider: the provider's callback reports the lease lost
 * first and only then deletes the node, so the holder always learns of the end before anyone else can take the lock.
 * <p>
 * One periodic task for all holds rather than a timer per lock keeps acquire and release free of scheduling; it acts
 * on an expired lease at most {@value #INTERVAL_MILLIS} ms late, which only delays the next holder (the holder's own
 * lease object expires on time). The lease end each hold keeps ({@link ZooKeeperHeldLock#expireIfDue}) is judged on
 * this process's monotonic clock, from when the granting request was sent.
 */
final class FixedLeaseSweep {

	/** Interval of the sweep. */
	static final long INTERVAL_MILLIS = 50;

	private final Collection<ZooKeeperHeldLock> held;

	private final ScheduledExecutorService scheduler;

	private final Consumer<ZooKeeperHeldLock> ranOut;

	private final AtomicBoolean started = new AtomicBoolean();

	/**
	 * Creates the sweep; it starts with the first hold.
	 * @param held a live view of the provider's holds
	 * @param scheduler the provider's scheduler thread
	 * @param ranOut what to do with a hold whose lease ran out (it is already marked finished)
	 */
	FixedLeaseSweep(Collection<ZooKeeperHeldLock> held, ScheduledExecutorService scheduler,
			Consumer<ZooKeeperHeldLock> ranOut) {
		this.held = held;
		this.scheduler = scheduler;
		this.ranOut = ranOut;
	}

	/**
	 * Starts sweeping, once; later calls do nothing.
	 */
	void start() {
		if (!this.started.get() && this.started.compareAndSet(false, true)) {
			try {
				this.scheduler.scheduleWithFixedDelay(this::sweep, INTERVAL_MILLIS, INTERVAL_MILLIS,
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				// the provider is closed: held nodes now live as long as the session
			}
		}
	}

	private void sweep() {
		long now = System.nanoTime();
		for (ZooKeeperHeldLock lock : this.held) {
			if (lock.expireIfDue(now)) {
				this.ranOut.accept(lock);
			}
		}
	}

}
