package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import org.apache.zookeeper.common.PathUtils;

/**
 * Maps lock keys to ZooKeeper node paths: {@code <base>/<encoded key>/<family>}, where
 * the family is {@code mutex}, {@code fair}, {@code rw} (READ and WRITE share one queue)
 * or {@code semaphore}. A key becomes exactly one path segment whatever it contains:
 * characters other than ASCII letters, digits, {@code -}, {@code _}, {@code :} and a
 * non-leading {@code .} are percent-encoded from UTF-8 (so {@code /}, {@code ..}, control
 * characters and {@code %} cannot escape the base path or alias another key), and an
 * encoded key longer than {@value #MAX_SEGMENT_LENGTH} characters is cut and suffixed
 * with {@code ~} and the SHA-256 of its encoding, a character the encoding never emits,
 * so long keys stay distinct and never meet a short one.
 *
 * @since 0.1.0
 */
public final class LockNodePaths {

	/** Longest encoded key kept whole; longer ones are cut and hashed. */
	public static final int MAX_SEGMENT_LENGTH = 200;

	/** How much of a too-long encoded key is kept, for operators reading the tree. */
	static final int KEPT_PREFIX_LENGTH = 120;

	private static final HexFormat HEX = HexFormat.of().withUpperCase();

	private final String basePath;

	/**
	 * Creates the mapping under a base path.
	 * @param basePath an absolute ZooKeeper path other than the root, without a trailing
	 * slash, e.g. {@code /distlock}
	 * @throws LockConfigurationException if the base path is not a valid ZooKeeper path
	 * or is the root
	 */
	public LockNodePaths(String basePath) {
		try {
			PathUtils.validatePath(basePath);
		}
		catch (IllegalArgumentException ex) {
			throw new LockConfigurationException("distlock.zookeeper.base-path '" + basePath
					+ "' is not a valid ZooKeeper path: " + ex.getMessage());
		}
		if ("/".equals(basePath) || basePath.equals("/zookeeper") || basePath.startsWith("/zookeeper/")) {
			throw new LockConfigurationException("distlock.zookeeper.base-path must not be the root or under "
					+ "/zookeeper (reserved by ZooKeeper), was '" + basePath + "'");
		}
		this.basePath = basePath;
	}

	public String basePath() {
		return this.basePath;
	}

	/**
	 * The node whose children are the queue of one lock.
	 * @param key the full lock key
	 * @param type the lock type
	 * @return the lock's path
	 */
	public String lockPath(String key, LockType type) {
		return this.basePath + "/" + encodeKey(key) + "/" + family(type);
	}

	/**
	 * The name of the queue a lock type lives in under its key: READ and WRITE share one.
	 * @param type the lock type
	 * @return the family segment
	 */
	public static String family(LockType type) {
		return switch (type) {
			case MUTEX -> "mutex";
			case FAIR -> "fair";
			case READ, WRITE -> "rw";
			case SEMAPHORE -> "semaphore";
		};
	}

	/**
	 * What the name of a queue node of this type starts with (before the sequence
	 * number).
	 * @param type the lock type
	 * @return the marker, without a dash
	 */
	static String marker(LockType type) {
		return switch (type) {
			case MUTEX, FAIR -> "lock";
			case READ -> "read";
			case WRITE -> "write";
			case SEMAPHORE -> "permit";
		};
	}

	/**
	 * Encodes a key into one valid, unique path segment.
	 * @param key the key
	 * @return the segment
	 */
	public static String encodeKey(String key) {
		if (key.isEmpty()) {
			// a lone '%' is never produced for a non-empty key
			return "%";
		}
		StringBuilder out = new StringBuilder(key.length() + 16);
		int i = 0;
		while (i < key.length()) {
			char c = key.charAt(i);
			if (isKept(c) && !(c == '.' && i == 0)) {
				out.append(c);
				i++;
			}
			else if (Character.isHighSurrogate(c) && i + 1 < key.length()
					&& Character.isLowSurrogate(key.charAt(i + 1))) {
				appendUtf8(out, key.substring(i, i + 2));
				i += 2;
			}
			else if (Character.isSurrogate(c)) {
				// an unpaired surrogate has no UTF-8 form; '%u' cannot start any other
				// escape
				out.append("%u").append(HEX.toHexDigits(c));
				i++;
			}
			else {
				appendUtf8(out, String.valueOf(c));
				i++;
			}
		}
		if (out.length() <= MAX_SEGMENT_LENGTH) {
			return out.toString();
		}
		String encoded = out.toString();
		return encoded.substring(0, KEPT_PREFIX_LENGTH) + "~" + sha256(encoded);
	}

	private static boolean isKept(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
				|| c == ':' || c == '.';
	}

	private static void appendUtf8(StringBuilder out, String chars) {
		for (byte b : chars.getBytes(StandardCharsets.UTF_8)) {
			out.append('%').append(HEX.toHexDigits(b));
		}
	}

	private static String sha256(String value) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
