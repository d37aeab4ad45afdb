package dev.distlock.zookeeper;

import java.util.Objects;
import java.util.UUID;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import org.jspecify.annotations.Nullable;

/**
 * A lock held through one ephemeral sequential node. The node's path is unique (sequence
 * number plus Curator's protection id) and never reused, so whoever knows the path owns
 * the node and deleting it can never remove another owner's node. Its lease is judged by
 * the core's lease clock, not here; this object only knows whether the hold ended, which
 * is guarded by this object's monitor. It is also a link of its provider's
 * {@link HeldLocks}, whose monitor guards the links.
 * <p>
 * The path is kept in pieces when it has the shape this provider gives its nodes
 * ({@code <lock path>/_c_<protection id>-<marker>-<10-digit sequence>}): the lock path
 * follows from the attempt's key and type, which the attempt keeps anyway, and the
 * protection id and sequence are numbers, so a held lock does not carry a string of a
 * hundred characters or more. {@link #path()} builds it again, exactly as it was (that is
 * checked when the lock is granted); a path of any other shape is kept whole.
 */
final class ZooKeeperHeldLock implements HeldLock {

	private static final int SEQUENCE_DIGITS = 10;

	private static final int UUID_LENGTH = 36;

	private static final long SEQUENCE_PAD = 10_000_000_000L;

	private final LockAttempt attempt;

	private final long fencingToken;

	/** Builds the lock path of a path kept in pieces; {@code null} if kept whole. */
	private final @Nullable LockNodePaths paths;

	/** The whole path, or {@code null} if kept in pieces. */
	private final @Nullable String path;

	/** The protection id's high half, if the path is kept in pieces. */
	private final long idHigh;

	/** The protection id's low half, if the path is kept in pieces. */
	private final long idLow;

	/** The node's sequence number, if the path is kept in pieces. */
	private final int sequence;

	/** Whether the key is its own path segment (nothing in it needs encoding). */
	private final boolean keyIsSegment;

	private boolean finished;

	/** The lock before this one in its {@link HeldLocks}; guarded by that list. */
	@Nullable ZooKeeperHeldLock previous;

	/** The lock after this one in its {@link HeldLocks}; guarded by that list. */
	@Nullable ZooKeeperHeldLock next;

	/**
	 * A lock that keeps its path whole.
	 * @param attempt the attempt it was granted to
	 * @param path its node's path
	 * @param fencingToken its fencing token
	 */
	ZooKeeperHeldLock(LockAttempt attempt, String path, long fencingToken) {
		this(attempt, fencingToken, null, path, 0, 0, 0, false);
	}

	private ZooKeeperHeldLock(LockAttempt attempt, long fencingToken, @Nullable LockNodePaths paths,
			@Nullable String path, long idHigh, long idLow, int sequence, boolean keyIsSegment) {
		this.attempt = attempt;
		this.fencingToken = fencingToken;
		this.paths = paths;
		this.path = path;
		this.idHigh = idHigh;
		this.idLow = idLow;
		this.sequence = sequence;
		this.keyIsSegment = keyIsSegment;
	}

	/**
	 * A lock that keeps its path in pieces if it has this provider's shape under the
	 * attempt's lock path, else whole; {@link #path()} returns {@code path} either way.
	 * @param paths the provider's mapping of keys to paths
	 * @param attempt the attempt it was granted to
	 * @param path its node's path
	 * @param fencingToken its fencing token
	 * @return the lock
	 */
	static ZooKeeperHeldLock of(LockNodePaths paths, LockAttempt attempt, String path, long fencingToken) {
		String prefix = paths.lockPath(attempt.key(), attempt.type()) + "/" + ZooKeeperCalls.PROTECTED_PREFIX;
		String suffix = "-" + LockNodePaths.marker(attempt.type()) + "-";
		int idEnd = prefix.length() + UUID_LENGTH;
		if (path.length() == idEnd + suffix.length() + SEQUENCE_DIGITS && path.startsWith(prefix)
				&& path.startsWith(suffix, idEnd)) {
			try {
				UUID id = UUID.fromString(path.substring(prefix.length(), idEnd));
				int sequence = Integer.parseInt(path, idEnd + suffix.length(), path.length(), 10);
				if (sequence < 0) {
					// a wrapped sequence: ZooKeeper writes a sign
					throw new NumberFormatException();
				}
				ZooKeeperHeldLock lock = new ZooKeeperHeldLock(attempt, fencingToken, paths, null,
						id.getMostSignificantBits(), id.getLeastSignificantBits(), sequence,
						LockNodePaths.encodeKey(attempt.key()).equals(attempt.key()));
				if (lock.path().equals(path)) {
					return lock;
				}
			}
			catch (IllegalArgumentException ex) {
				// not a UUID or not a sequence number: kept whole
			}
		}
		return new ZooKeeperHeldLock(attempt, path, fencingToken);
	}

	LockAttempt attempt() {
		return this.attempt;
	}

	/**
	 * The node's path, built again if kept in pieces: one concatenation of the base path,
	 * the key (encoded again only if it is not its own segment), the family, the
	 * protection id and the sequence, which a renewal pass does for every lease.
	 * @return the path
	 */
	String path() {
		String whole = this.path;
		LockNodePaths lockPaths = this.paths;
		if (whole != null || lockPaths == null) {
			// kept whole: exactly one of the two is set
			return Objects.requireNonNull(whole);
		}
		String key = this.attempt.key();
		LockType type = this.attempt.type();
		String segment = this.keyIsSegment ? key : LockNodePaths.encodeKey(key);
		// ZooKeeper's %010d of a sequence that has not wrapped
		String sequence = Long.toString(SEQUENCE_PAD + this.sequence).substring(1);
		return lockPaths.basePath() + "/" + segment + "/" + LockNodePaths.family(type) + "/"
				+ ZooKeeperCalls.PROTECTED_PREFIX + new UUID(this.idHigh, this.idLow) + "-" + LockNodePaths.marker(type)
				+ "-" + sequence;
	}

	/** Whether the path is kept in pieces rather than whole. */
	boolean isPathInPieces() {
		return this.path == null;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	synchronized boolean isFinished() {
		return this.finished;
	}

	/**
	 * Ends the hold (released or lost); only the first call returns {@code true}.
	 * @return whether the hold was live
	 */
	synchronized boolean finish() {
		if (this.finished) {
			return false;
		}
		this.finished = true;
		return true;
	}

	@Override
	public String toString() {
		return "ZooKeeperHeldLock[" + path() + ", token=" + this.fencingToken + "]";
	}

}
