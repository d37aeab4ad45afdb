package dev.distlock.jdbc;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Owner tokens as a shared prefix and a sequence number each. The core makes every token
 * of a process from one prefix and a sequence number; a batch of such tokens can go to
 * the database as the prefix once and the numbers as a {@code BIGINT} array. A token is
 * split at its trailing decimal digits (at most 18, so the number fits a {@code long}),
 * less any leading zeros, which stay with the prefix: the prefix followed by the number
 * in decimal is then exactly the token, whatever the token is.
 */
final class OwnerSequences {

	private static final int MAX_DIGITS = 18;

	private OwnerSequences() {
	}

	/**
	 * The shared prefix and the sequence numbers of the locks' owner tokens, if they all
	 * share the first one's prefix.
	 * @param locks the locks, at least one
	 * @return the prefix and the numbers in the locks' order, or {@code null} if a token
	 * has no number or another prefix
	 */
	static @Nullable Split split(List<JdbcHeldLock> locks) {
		String first = locks.get(0).owner();
		int prefixLength = prefixLength(first);
		if (prefixLength < 0) {
			return null;
		}
		String prefix = first.substring(0, prefixLength);
		Long[] sequences = new Long[locks.size()];
		for (int i = 0; i < sequences.length; i++) {
			String owner = locks.get(i).owner();
			// startsWith compares the strings' bytes; regionMatches goes char by char
			if (prefixLength(owner) != prefixLength || !owner.startsWith(prefix)) {
				return null;
			}
			sequences[i] = number(owner, prefixLength);
		}
		return new Split(prefix, sequences);
	}

	/**
	 * Owner tokens split: each is {@code prefix} followed by its number in decimal.
	 *
	 * @param prefix the prefix every token shares
	 * @param sequences each token's number, in the locks' order
	 */
	record Split(String prefix, Long[] sequences) {
	}

	/**
	 * Where a token's number starts: after its prefix.
	 * @param owner the token
	 * @return the length of its prefix, or -1 if it does not end with a digit
	 */
	static int prefixLength(String owner) {
		int end = owner.length();
		int start = end;
		while (start > 0 && end - start < MAX_DIGITS && isDigit(owner.charAt(start - 1))) {
			start--;
		}
		if (start == end) {
			return -1;
		}
		// leading zeros stay with the prefix: the number's decimal form has none
		while (start < end - 1 && owner.charAt(start) == '0') {
			start++;
		}
		return start;
	}

	private static long number(String owner, int from) {
		long value = 0;
		for (int i = from; i < owner.length(); i++) {
			value = value * 10 + (owner.charAt(i) - '0');
		}
		return value;
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

}
