package dev.distlock.sample.holds;

import java.time.Duration;
import java.time.Instant;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.sample.InstanceName;

import org.springframework.stereotype.Service;

/**
 * {@link LockTemplate} used directly, for code that wants the {@link Lease} in hand
 * rather than an annotation: holds a MUTEX for a while and reports who held it, when, and
 * with which fencing token. Run from several instances at once, the reported holds of one
 * key never overlap and their tokens grow in the order they were held.
 */
@Service
public class HoldService {

	private final LockTemplate locks;

	private final InstanceName instance;

	HoldService(LockTemplate locks, InstanceName instance) {
		this.locks = locks;
		this.instance = instance;
	}

	/**
	 * Holds the key's lock for {@code duration}.
	 * @param key the lock key (prefixed with {@code hold:})
	 * @param duration how long to hold it
	 * @param wait how long to wait for it
	 * @return the hold
	 * @throws dev.distlock.core.LockAcquisitionException if the lock stayed busy for the
	 * whole wait
	 */
	public Hold hold(String key, Duration duration, Duration wait) throws InterruptedException {
		LockRequest request = LockRequest.builder("hold:" + key).name("hold").waitTime(wait).build();
		try (Lease lease = this.locks.acquire(request)) {
			Instant start = Instant.now();
			Thread.sleep(duration.toMillis());
			Instant end = Instant.now();
			// a lease lost while we slept means someone else may have held the key
			// meanwhile: say so, do not pretend
			this.locks.checkNotLost(lease);
			return new Hold(key, this.instance.toString(), lease.fencingToken(), start, end);
		}
	}

	/**
	 * One hold of a lock.
	 *
	 * @param key the key
	 * @param instance who held it
	 * @param lockToken its fencing token
	 * @param start when the holder started its work (after acquiring)
	 * @param end when it finished (before releasing)
	 */
	public record Hold(String key, String instance, long lockToken, Instant start, Instant end) {
	}

}
