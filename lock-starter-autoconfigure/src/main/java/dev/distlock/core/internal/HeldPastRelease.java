package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Ends holds kept past their release ({@code holdAtLeast}) on backends whose locks do not
 * expire on their own ({@link LockProvider#expiresLeases()} is {@code false}, ZooKeeper):
 * once the hold is over, the lock is released (owner-checked) from one shared daemon
 * thread, created on first use. A crash of the process ends such a hold earlier, with its
 * backend session.
 */
final class HeldPastRelease {

	private static final Log logger = LogFactory.getLog(HeldPastRelease.class);

	private static final class Scheduler {

		static final ScheduledThreadPoolExecutor INSTANCE = create();

		private static ScheduledThreadPoolExecutor create() {
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
					Timing.daemonThreads("distlock-hold-"));
			executor.setRemoveOnCancelPolicy(true);
			return executor;
		}

	}

	private HeldPastRelease() {
	}

	static <H extends HeldLock> void releaseAfter(LockProvider<H> provider, H lock, Duration hold) {
		Scheduler.INSTANCE.schedule(() -> {
			try {
				provider.release(lock);
			}
			catch (Exception ex) {
				logger.warn("Could not release " + lock + " at the end of its hold; its backend session ends it", ex);
			}
		}, Timing.saturatedNanos(hold), TimeUnit.NANOSECONDS);
	}

}
