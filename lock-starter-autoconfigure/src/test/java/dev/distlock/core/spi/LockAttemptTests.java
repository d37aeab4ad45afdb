package dev.distlock.core.spi;

import java.lang.reflect.Field;
import java.time.Duration;

import dev.distlock.core.LockType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The owner token of an attempt: {@link LockAttempt#appendOwner} writes what
 * {@link LockAttempt#owner()} returns without making the attempt keep it.
 */
class LockAttemptTests {

	private static LockAttempt attempt(String ownerPrefix, long ownerSequence) {
		return new LockAttempt("key", LockType.MUTEX, 1, Duration.ofSeconds(5), ownerPrefix, ownerSequence,
				System.nanoTime() + 1_000_000_000L, null);
	}

	@Test
	void appendOwnerWritesTheTokenWithoutKeepingIt() throws Exception {
		LockAttempt attempt = attempt("3f1c-prefix:", 42);
		StringBuilder out = new StringBuilder("owner=");
		assertThat(attempt.appendOwner(out)).isSameAs(out);
		assertThat(out).hasToString("owner=3f1c-prefix:42");
		assertThat(attempt.toString()).isEqualTo("MUTEX 'key' for 3f1c-prefix:42");
		assertThat(keptOwner(attempt)).as("token kept by appendOwner or toString").isNull();
		assertThat(attempt.owner()).isEqualTo("3f1c-prefix:42");
		assertThat(keptOwner(attempt)).as("owner() keeps the token it built").isEqualTo("3f1c-prefix:42");
		assertThat(attempt.appendOwner(new StringBuilder())).hasToString("3f1c-prefix:42");
	}

	@Test
	void appendOwnerWithoutSequenceWritesThePrefixAlone() {
		LockAttempt attempt = new LockAttempt("key", LockType.MUTEX, 1, Duration.ofSeconds(5), "whole-token");
		assertThat(attempt.appendOwner(new StringBuilder())).hasToString("whole-token");
		assertThat(attempt.owner()).isEqualTo("whole-token");
		assertThat(attempt(Long.MAX_VALUE + "", 0).appendOwner(new StringBuilder())).hasToString(Long.MAX_VALUE + "0");
	}

	private static Object keptOwner(LockAttempt attempt) throws Exception {
		Field owner = LockAttempt.class.getDeclaredField("owner");
		owner.setAccessible(true);
		return owner.get(attempt);
	}

}
