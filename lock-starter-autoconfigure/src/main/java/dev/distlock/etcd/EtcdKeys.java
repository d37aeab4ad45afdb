package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import io.etcd.jetcd.ByteSequence;

/**
 * Maps lock keys and latch names to etcd keys under a root: a lock's queue is the range
 * {@code <root>/lock/<encoded key>/<family>/}, where the family is {@code mutex},
 * {@code fair}, {@code rw} (READ and WRITE share one queue) or {@code semaphore}, and
 * each attempt adds one entry {@code <queue>/<type>-<encoded owner>} to it, the type in
 * lower case; a latch is {@code <root>/latch/<encoded name>}. Keys are data: in a key, an
 * owner or a name, {@code %} becomes {@code %25} and {@code /} becomes {@code %2F}, so
 * none can reach outside its segment or alias another (the encoding is one-to-one),
 * whatever else it contains.
 *
 * @since 0.3.0
 */
public final class EtcdKeys {

	/** The root used when none is given. */
	public static final String DEFAULT_ROOT = "/distlock";

	/** Every type's marker, by ordinal: built once, not per key. */
	private static final String[] MARKERS = Arrays.stream(LockType.values())
		.map((type) -> type.name().toLowerCase(Locale.ROOT))
		.toArray(String[]::new);

	private final String root;

	/**
	 * Creates the mapping under a root.
	 * @param root a non-blank prefix that does not end with {@code /}, e.g.
	 * {@code /distlock}
	 * @throws LockConfigurationException if the root is blank or ends with a slash
	 */
	public EtcdKeys(String root) {
		if (root == null || root.isBlank() || root.endsWith("/")) {
			throw new LockConfigurationException(
					"distlock.etcd.root must be a non-blank prefix without a trailing '/', was '" + root + "'");
		}
		this.root = root;
	}

	public String root() {
		return this.root;
	}

	/**
	 * The prefix of a lock's queue: every entry of the lock's queue, and nothing else,
	 * starts with it.
	 * @param key the full lock key
	 * @param type the lock type
	 * @return the queue prefix, ending with {@code /}
	 */
	public String queue(String key, LockType type) {
		return this.root + "/lock/" + encode(key) + "/" + family(type) + "/";
	}

	/**
	 * The entry an attempt adds to its lock's queue.
	 * @param queue the queue prefix
	 * @param type the attempt's type
	 * @param owner the attempt's owner token, unique per acquisition
	 * @return the entry's key
	 */
	static String entry(String queue, LockType type, String owner) {
		return queue + marker(type) + "-" + encode(owner);
	}

	/**
	 * The key of a latch.
	 * @param name the full latch name
	 * @return the latch's key
	 */
	String latch(String name) {
		return this.root + "/latch/" + encode(name);
	}

	/**
	 * The prefix every lock entry starts with, for operators and tests.
	 * @return the prefix of all locks
	 */
	public String locks() {
		return this.root + "/lock/";
	}

	private static String family(LockType type) {
		// READ and WRITE must queue together: a reader waits for the writers ahead of it
		return (type == LockType.READ || type == LockType.WRITE) ? "rw" : marker(type);
	}

	static String marker(LockType type) {
		return MARKERS[type.ordinal()];
	}

	/**
	 * Encodes a key, an owner or a name into one segment that holds no {@code /}.
	 * @param value the value
	 * @return the segment
	 */
	public static String encode(String value) {
		if (value.indexOf('%') < 0 && value.indexOf('/') < 0) {
			return value;
		}
		return value.replace("%", "%25").replace("/", "%2F");
	}

	static ByteSequence bytes(String value) {
		return ByteSequence.from(value, StandardCharsets.UTF_8);
	}

}
