package dev.distlock.redisson;

import dev.distlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * Too few nodes of a {@link RedissonQuorumLockProvider} answered for a majority to be
 * possible: the quorum lock can be neither acquired nor renewed until more nodes are
 * back. Raised from an attempt, it ends the acquisition at once (as the cause of a
 * {@code LockAcquisitionException}) instead of waiting out the deadline.
 *
 * @since 0.1.0
 */
public class QuorumUnavailableException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	public QuorumUnavailableException(String message) {
		super(message);
	}

	public QuorumUnavailableException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
