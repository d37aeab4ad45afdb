package dev.distlock.jdbc;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Owner tokens split into a prefix and a number: the prefix followed by the number in
 * decimal is the token again, and a batch is split only if every token has the first
 * one's prefix.
 */
class OwnerSequencesTests {

	@Test
	void aTokenIsItsPrefixFollowedByItsNumberInDecimal() {
		for (String owner : List.of("a1b2c3d4:0", "a1b2c3d4:7", "a1b2c3d4:1234567", "p-007", "x00", "x0", "42", "0",
				"abc:1234567890123456789012", "9223372036854775807")) {
			OwnerSequences.Split split = OwnerSequences.split(locks(owner));
			assertThat(split).as(owner).isNotNull();
			assertThat(split.prefix() + split.sequences()[0]).as(owner).isEqualTo(owner);
		}
	}

	@Test
	void aTokenWithoutTrailingDigitsIsNotSplit() {
		assertThat(OwnerSequences.split(locks("o-5f1c0e2a-6c3b-4b7e-9d1a-3e2b1c0d9e8f"))).isNull();
		assertThat(OwnerSequences.prefixLength("owner")).isEqualTo(-1);
	}

	@Test
	void tokensOfOnePrefixAreSplitAndTokensOfTwoAreNot() {
		assertThat(OwnerSequences.split(locks("node-a:1", "node-a:20", "node-a:300")).sequences()).containsExactly(1L,
				20L, 300L);
		assertThat(OwnerSequences.split(locks("node-a:1", "node-b:2"))).isNull();
		// the same length of prefix, another prefix
		assertThat(OwnerSequences.split(locks("aa:1", "ab:1"))).isNull();
		// a token whose prefix ends with a zero keeps it: "x0" and 5, "x0" and 12
		assertThat(OwnerSequences.split(locks("x05", "x012")).sequences()).containsExactly(5L, 12L);
	}

	private static List<JdbcHeldLock> locks(String... owners) {
		List<JdbcHeldLock> locks = new ArrayList<>();
		for (String owner : owners) {
			locks.add(new JdbcHeldLock("k", new LockTarget("k", "mutex", "channel"), 0, owner, 1));
		}
		return locks;
	}

}
