package dev.distlock.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

import dev.distlock.core.LockKeyException;
import dev.distlock.core.LockType;

/**
 * How locks are named in the table and on the notification channel: keys up to
 * {@value #MAX_PLAIN_KEY} characters as they are, longer ones as their first characters,
 * {@code #} and their SHA-256 (255 characters, which every dialect's key column holds);
 * one letter per kind of lock; the table's channel, digested when longer than
 * PostgreSQL's 63-byte identifiers.
 */
final class StoredKeys {

	/** Keys up to this length are stored as they are. */
	static final int MAX_PLAIN_KEY = 190;

	private StoredKeys() {
	}

	/**
	 * The key as stored. The two forms differ in length, so distinct keys stay distinct.
	 * @param key the full key
	 * @return the stored key
	 * @throws LockKeyException if the key holds an unpaired UTF-16 surrogate
	 */
	static String storedKey(String key) {
		requireWellFormed(key);
		if (key.length() <= MAX_PLAIN_KEY) {
			return key;
		}
		int cut = MAX_PLAIN_KEY;
		if (Character.isHighSurrogate(key.charAt(cut - 1))) {
			cut--;
		}
		return key.substring(0, cut) + "#" + sha256(key);
	}

	/**
	 * Refuses a key that has no UTF-8 form: drivers (and {@link String#getBytes}) write
	 * {@code ?} for an unpaired surrogate, so {@code "k\uD800"} would be stored, hashed
	 * and notified as {@code "k?"}, one lock with another.
	 */
	private static void requireWellFormed(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				throw new LockKeyException("Lock key has an unpaired UTF-16 surrogate (U+"
						+ Integer.toHexString(c).toUpperCase(Locale.ROOT) + " at index " + i + "), which has no UTF-8 "
						+ "form: the database would store it as '?', one lock with another key");
			}
		}
	}

	/**
	 * The kind column of a lock type: MUTEX, FAIR, READ/WRITE (one lock) and SEMAPHORE
	 * are separate locks.
	 * @param type the type
	 * @return the kind letter
	 */
	static String kind(LockType type) {
		return switch (type) {
			case MUTEX -> "M";
			case FAIR -> "F";
			case READ, WRITE -> "W";
			case SEMAPHORE -> "S";
		};
	}

	/**
	 * The notification channel of a table: its name, or a digest of it when longer than
	 * PostgreSQL's 63-byte identifiers (a schema-qualified name may be).
	 * @param tableName the validated table name
	 * @return the channel
	 */
	static String channel(String tableName) {
		return (tableName.length() <= 63) ? tableName : "distlock_" + sha256(tableName).substring(0, 40);
	}

	private static String sha256(String text) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing", ex);
		}
	}

}
