package dev.distlock.redisson;

import java.util.List;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import org.redisson.RedissonObject;

/**
 * The Redis names of one lock of the Redisson backends. Each lock type has a namespace of
 * its own that no user key can forge: every name starts with the hash tag
 * {@code {<key>}}, in which {@code %} and {@code }} are percent-encoded ({@code %25},
 * {@code %7D}), so the tag always ends where the key ends and the type suffix after it
 * cannot be part of a key. (Without this, MUTEX {@code doc:7:rw} and READ/WRITE
 * {@code doc:7} shared one hash, and releasing the MUTEX deleted the readers.) The
 * encoding is injective and leaves ordinary keys readable: {@code lock:orders:42} becomes
 * {@code {lock:orders:42}:redisson:mutex}. Because the name holds a {@code {...}},
 * Redisson derives its own names from it ({@code redisson_lock__channel:<name>},
 * {@code <name>:timeout}, ...) without adding braces, so every key of one lock hashes to
 * the same Redis Cluster slot.
 * <p>
 * The {@code redisson} infix keeps these locks apart from the {@code redis} provider's
 * ({@code {key}:mutex}), which stores other data types under similar names.
 */
final class RedissonLockKeys {

	private final LockType type;

	private final String lock;

	private final String fence;

	private RedissonLockKeys(String tag, LockType type) {
		this.type = type;
		this.lock = tag + switch (type) {
			case MUTEX -> ":redisson:mutex";
			case FAIR -> ":redisson:fair";
			case READ, WRITE -> ":redisson:rw";
			case SEMAPHORE -> ":redisson:semaphore";
		};
		this.fence = tag + ":redisson:fence";
	}

	/**
	 * The names of the lock of this type on the full key.
	 * @param fullKey the key as the core hands it over (prefix included)
	 * @param type the lock type
	 * @return the names
	 */
	static RedissonLockKeys of(String fullKey, LockType type) {
		return new RedissonLockKeys(tag(fullKey), type);
	}

	/**
	 * The names of an attempt's lock.
	 * @param attempt the attempt
	 * @return the names
	 */
	static RedissonLockKeys of(LockAttempt attempt) {
		return of(attempt.key(), attempt.type());
	}

	/**
	 * The hash tag of a key: {@code {key}} with {@code %} and {@code }} percent-encoded.
	 * @param fullKey the key
	 * @return the tag
	 */
	static String tag(String fullKey) {
		if (fullKey.isEmpty()) {
			throw new IllegalArgumentException("Lock key must not be empty");
		}
		return "{" + fullKey.replace("%", "%25").replace("}", "%7D") + "}";
	}

	/**
	 * The name of the Redisson object behind the lock: the hash of a MUTEX, FAIR or
	 * READ/WRITE lock, the permit count of a SEMAPHORE.
	 * @return the name
	 */
	String lock() {
		return this.lock;
	}

	/**
	 * The fencing counter of the key, shared by its lock types (each type's tokens still
	 * increase), in its slot.
	 */
	String fence() {
		return this.fence;
	}

	/**
	 * Redisson's pub/sub channel of a lock, on which its waiters hear of an unlock
	 * ({@code RedissonLock.getChannelName()}).
	 */
	String lockChannel() {
		return RedissonObject.prefixName("redisson_lock__channel", this.lock);
	}

	/** Redisson's wait queue of a FAIR lock (a list of holder fields). */
	String fairQueue() {
		return RedissonObject.prefixName("redisson_lock_queue", this.lock);
	}

	/** Redisson's queue timeouts of a FAIR lock (a sorted set holder field → timeout). */
	String fairTimeouts() {
		return RedissonObject.prefixName("redisson_lock_timeout", this.lock);
	}

	/**
	 * Redisson's permits of a SEMAPHORE by expiry (a sorted set permit id → expiry in
	 * epoch ms).
	 */
	String permitTimeouts() {
		return RedissonObject.suffixName(this.lock, "timeout");
	}

	/**
	 * Where Redisson keeps the per-hold timeouts of one reader of a READ/WRITE lock:
	 * this, then {@code :<n>}.
	 * @param holder the reader's field
	 * @return the prefix
	 */
	String readHolds(String holder) {
		return RedissonObject.suffixName(this.lock, holder) + ":rwlock_timeout";
	}

	/**
	 * The field Redisson stores a holder under in the lock's hash:
	 * {@code <client id>:<owner id>}, and {@code :write} after it for a writer.
	 * @param clientId the Redisson client's id
	 * @param ownerId the synthetic owner id
	 * @param type the lock type
	 * @return the field
	 */
	static String holder(String clientId, long ownerId, LockType type) {
		String field = clientId + ":" + ownerId;
		return (type == LockType.WRITE) ? field + ":write" : field;
	}

	/**
	 * The keys that make up the lock's state while held or waited for (not the fencing
	 * counter; not a reader's per-hold keys).
	 * @return the keys
	 */
	List<String> lockState() {
		return switch (this.type) {
			case MUTEX, READ, WRITE -> List.of(this.lock);
			case FAIR -> List.of(this.lock, fairQueue(), fairTimeouts());
			case SEMAPHORE -> List.of(this.lock, permitTimeouts());
		};
	}

}
