package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.LockType;

/**
 * The Redis keys and release channel of one lock. Every name starts with the same hash tag, {@code {<full key>}},
 * so all keys a script touches hash to one slot: Redis Cluster refuses scripts whose keys span slots (CROSSSLOT),
 * even when the slots live on one node. Redis takes the tag from the first {@code {} to the first {@code }} after
 * it, so a {@code }} inside a user key would end the tag early (and one right at its start would leave it empty and
 * hash every key on its own); {@code }} and {@code %} are therefore percent-encoded inside the tag
 * ({@code %7D}, {@code %25}). The encoding is injective, so distinct keys never share names, and leaves ordinary
 * keys readable: {@code lock:orders:42} becomes {@code {lock:orders:42}:mutex}.
 * <p>
 * Layout, per lock type (MUTEX, FAIR, READ/WRITE and SEMAPHORE of one key are separate locks):
 * <ul>
 * <li>MUTEX: {@code <tag>:mutex} holds the owner token (string with the lease as expiry).</li>
 * <li>FAIR: {@code <tag>:fair} holds the owner token; {@code <tag>:fair:queue} (list) and
 * {@code <tag>:fair:timeouts} (sorted set owner → timeout) are the wait queue.</li>
 * <li>READ/WRITE: {@code <tag>:rw:writer} holds the writer's owner token; {@code <tag>:rw:readers} (sorted set
 * owner → lease end) the readers; {@code <tag>:rw:waiting-writers} (sorted set owner → timeout) the writers waiting
 * for readers to leave.</li>
 * <li>SEMAPHORE: {@code <tag>:semaphore} (sorted set owner → lease end) the permit holders.</li>
 * <li>Every type: {@code <tag>:fence}, the fencing counter of the key; the release channel
 * {@code <tag>:<type>:released}.</li>
 * </ul>
 */
final class RedisLockKeys {

	private final LockType type;

	private final String holder;

	private final String members;

	private final String queue;

	private final String waiters;

	private final String fence;

	private final String channel;

	private RedisLockKeys(String tag, LockType type) {
		this.type = type;
		this.fence = tag + ":fence";
		String lock = tag + switch (type) {
			case MUTEX -> ":mutex";
			case FAIR -> ":fair";
			case READ, WRITE -> ":rw";
			case SEMAPHORE -> ":semaphore";
		};
		this.channel = lock + ":released";
		switch (type) {
			case MUTEX -> {
				this.holder = lock;
				this.members = "";
				this.queue = "";
				this.waiters = "";
			}
			case FAIR -> {
				this.holder = lock;
				this.members = "";
				this.queue = lock + ":queue";
				this.waiters = lock + ":timeouts";
			}
			case READ, WRITE -> {
				this.holder = lock + ":writer";
				this.members = lock + ":readers";
				this.queue = "";
				this.waiters = lock + ":waiting-writers";
			}
			default -> {
				this.holder = "";
				this.members = lock;
				this.queue = "";
				this.waiters = "";
			}
		}
	}

	/**
	 * The keys of the lock of this type on the full key.
	 * @param fullKey the key as the core hands it over (prefix included)
	 * @param type the lock type
	 * @return the keys
	 */
	static RedisLockKeys of(String fullKey, LockType type) {
		return new RedisLockKeys(tag(fullKey), type);
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
		StringBuilder tag = new StringBuilder(fullKey.length() + 2).append('{');
		for (int i = 0; i < fullKey.length(); i++) {
			char c = fullKey.charAt(i);
			switch (c) {
				case '%' -> tag.append("%25");
				case '}' -> tag.append("%7D");
				default -> tag.append(c);
			}
		}
		return tag.append('}').toString();
	}

	LockType type() {
		return this.type;
	}

	/**
	 * Whether the lock is held as a sorted-set member (READ, SEMAPHORE) rather than as the string {@link #holder()}.
	 * @return {@code true} for READ and SEMAPHORE
	 */
	boolean heldAsMember() {
		return this.type == LockType.READ || this.type == LockType.SEMAPHORE;
	}

	/** The string that holds the exclusive owner (MUTEX, FAIR, WRITE; READ checks it for a writer). */
	String holder() {
		return this.holder;
	}

	/** The sorted set of shared holders (READ readers, SEMAPHORE permits). */
	String members() {
		return this.members;
	}

	/** The FAIR wait queue. */
	String queue() {
		return this.queue;
	}

	/** The timeouts of waiters: FAIR queue places, or writers waiting for readers. */
	String waiters() {
		return this.waiters;
	}

	String fence() {
		return this.fence;
	}

	String channel() {
		return this.channel;
	}

	/**
	 * Every key that makes up the lock state (not the fencing counter, which outlives it).
	 * @return the keys
	 */
	List<String> lockState() {
		List<String> keys = new ArrayList<>(4);
		for (String key : new String[] { this.holder, this.members, this.queue, this.waiters }) {
			if (!key.isEmpty()) {
				keys.add(key);
			}
		}
		return keys;
	}

}
