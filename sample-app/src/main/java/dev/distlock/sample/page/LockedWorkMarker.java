package dev.distlock.sample.page;

import dev.distlock.core.Lease;
import dev.distlock.core.LockContext;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * Marks on the {@link LockTimeline} when the work of a {@code @DistributedLock} method
 * starts and ends. Ordered last, so it runs inside distlock's advisor
 * ({@code Ordered.LOWEST_PRECEDENCE - 1}): the end is marked before the release begins,
 * so one holder's recorded hold ends before the next holder's is granted, whatever the
 * release's round trip.
 */
@Aspect
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
class LockedWorkMarker {

	private final LockTimeline timeline;

	LockedWorkMarker(LockTimeline timeline) {
		this.timeline = timeline;
	}

	@Around("@annotation(dev.distlock.annotation.DistributedLock)")
	public Object mark(ProceedingJoinPoint call) throws Throwable {
		Lease lease = LockContext.findCurrentLease().orElse(null);
		if (lease == null) { // a fallback method called without the lock
			return call.proceed();
		}
		this.timeline.workStarted(lease);
		try {
			return call.proceed();
		}
		finally {
			this.timeline.workEnded(lease);
		}
	}

}
