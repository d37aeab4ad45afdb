package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import dev.distlock.core.LockType;

/**
 * The Redis keys and release channel of one lock. Every name starts with the hash tag
 * {@code {<full key>}}, so all keys a script touches hash to one slot (Redis Cluster
 * refuses scripts whose keys span slots). Inside the tag {@code }} and {@code %} are
 * percent-encoded ({@code %7D}, {@code %25}), since a {@code }} would end the tag early,
 * and an unpaired UTF-16 surrogate becomes {@code %u} and its four hex digits, as the
 * ZooKeeper backend writes it. The encoding is injective, so distinct keys never share
 * names, and leaves ordinary keys readable: {@code lock:orders:42} becomes
 * {@code {lock:orders:42}:mutex}. Each lock type has its own keys beside the key's
 * fencing counter {@code <tag>:fence}; the layout per type is in docs/redis.md. Names are
 * built as bytes, the form the scripts get; the {@code String} accessors decode them.
 */
final class RedisLockKeys {

	private static final byte[] NONE = new byte[0];

	private final LockType type;

	/**
	 * The lock's own name, {@code <tag>:<family>}; the fencing counter's and the wake-up
	 * set's names are built from it when a call needs them, so a held lock keeps one name
	 * (MUTEX, FAIR) or two (READ/WRITE) rather than every one of them.
	 */
	private final byte[] lock;

	private final int tagLength;

	private final byte[] holder;

	private final byte[] members;

	private final byte[] queue;

	private final byte[] waiters;

	private RedisLockKeys(byte[] tag, LockType type) {
		this.type = type;
		this.tagLength = tag.length;
		byte[] lock = join(tag, tag.length, switch (type) {
			case MUTEX -> ":mutex";
			case FAIR -> ":fair";
			case READ, WRITE -> ":rw";
			case SEMAPHORE -> ":semaphore";
		});
		this.lock = lock;
		switch (type) {
			case MUTEX -> {
				this.holder = lock;
				this.members = NONE;
				this.queue = NONE;
				this.waiters = NONE;
			}
			case FAIR -> {
				this.holder = lock;
				this.members = NONE;
				this.queue = join(lock, lock.length, ":queue");
				this.waiters = join(lock, lock.length, ":timeouts");
			}
			case READ, WRITE -> {
				this.holder = join(lock, lock.length, ":writer");
				this.members = join(lock, lock.length, ":readers");
				this.queue = NONE;
				this.waiters = join(lock, lock.length, ":waiting-writers");
			}
			default -> {
				this.holder = NONE;
				this.members = lock;
				this.queue = NONE;
				this.waiters = NONE;
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
		return new RedisLockKeys(tag(fullKey).getBytes(StandardCharsets.UTF_8), type);
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
		if (isPlain(fullKey)) {
			return "{" + fullKey + "}";
		}
		StringBuilder tag = new StringBuilder(fullKey.length() + 8).append('{');
		for (int i = 0; i < fullKey.length(); i++) {
			char c = fullKey.charAt(i);
			if (c == '%') {
				tag.append("%25");
			}
			else if (c == '}') {
				tag.append("%7D");
			}
			else if (Character.isHighSurrogate(c) && i + 1 < fullKey.length()
					&& Character.isLowSurrogate(fullKey.charAt(i + 1))) {
				tag.append(c).append(fullKey.charAt(++i));
			}
			else if (Character.isSurrogate(c)) {
				// '%u' starts no other escape, so the encoding stays injective
				tag.append("%u").append(HexFormat.of().withUpperCase().toHexDigits(c));
			}
			else {
				tag.append(c);
			}
		}
		return tag.append('}').toString();
	}

	private static boolean isPlain(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == '%' || c == '}' || Character.isSurrogate(c)) {
				return false;
			}
		}
		return true;
	}

	private static byte[] join(byte[] prefix, int length, String suffix) {
		byte[] joined = new byte[length + suffix.length()];
		System.arraycopy(prefix, 0, joined, 0, length);
		for (int i = 0; i < suffix.length(); i++) {
			joined[length + i] = (byte) suffix.charAt(i); // suffixes are ASCII
		}
		return joined;
	}

	LockType type() {
		return this.type;
	}

	/**
	 * Whether the lock is held as a sorted-set member (READ, SEMAPHORE) rather than as
	 * the string {@link #holder()}.
	 * @return {@code true} for READ and SEMAPHORE
	 */
	boolean heldAsMember() {
		return this.type == LockType.READ || this.type == LockType.SEMAPHORE;
	}

	/**
	 * The string that holds the exclusive owner (MUTEX, FAIR, WRITE; READ checks it for a
	 * writer).
	 */
	byte[] holderKey() {
		return this.holder;
	}

	/** The sorted set of shared holders (READ readers, SEMAPHORE permits). */
	byte[] membersKey() {
		return this.members;
	}

	/** The FAIR wait queue. */
	byte[] queueKey() {
		return this.queue;
	}

	/** The timeouts of waiters: FAIR queue places, or writers waiting for readers. */
	byte[] waitersKey() {
		return this.waiters;
	}

	/** The key's fencing counter: a new array on every call. */
	byte[] fenceKey() {
		return join(this.lock, this.tagLength, ":fence");
	}

	/**
	 * The waiters to wake on release, and the name of the channel they listen on: a new
	 * array on every call.
	 */
	byte[] wakeupKey() {
		return join(this.lock, this.lock.length, ":wakeup");
	}

	String holder() {
		return string(this.holder);
	}

	String members() {
		return string(this.members);
	}

	String fence() {
		return string(fenceKey());
	}

	String channel() {
		return string(wakeupKey());
	}

	/**
	 * Every key that makes up the lock state (not the fencing counter, which outlives
	 * it).
	 * @return the keys
	 */
	List<String> lockState() {
		List<String> keys = new ArrayList<>(5);
		for (byte[] key : new byte[][] { this.holder, this.members, this.queue, this.waiters, wakeupKey() }) {
			if (key.length > 0) {
				keys.add(string(key));
			}
		}
		return keys;
	}

	private static String string(byte[] key) {
		return new String(key, StandardCharsets.UTF_8);
	}

}
