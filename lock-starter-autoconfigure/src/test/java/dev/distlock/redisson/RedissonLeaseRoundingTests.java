package dev.distlock.redisson;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every lease the Redisson scripts and Redisson's own calls get is a whole number of
 * milliseconds, rounded up: the holder counts the lease it asked for, so Redis must never
 * free the key before that (a lease of 1.5 ms sent as 1 ms let the server free the key up
 * to a millisecond before the lease read invalid).
 */
class RedissonLeaseRoundingTests {

	@Test
	void aFractionOfAMillisecondIsRoundedUp() {
		assertThat(RedissonLockScripts.millis(Duration.ofNanos(1_500_000))).isEqualTo(2);
		assertThat(RedissonLockScripts.millis(Duration.ofMillis(30_000).plusNanos(1))).isEqualTo(30_001);
		assertThat(RedissonLockScripts.millis(Duration.ofNanos(999_999))).isEqualTo(1);
	}

	@Test
	void wholeMillisecondsStayAsTheyAre() {
		assertThat(RedissonLockScripts.millis(Duration.ofMillis(1))).isEqualTo(1);
		assertThat(RedissonLockScripts.millis(Duration.ofSeconds(30))).isEqualTo(30_000);
	}

	@Test
	void aLeaseTooLongToCountInMillisecondsIsFarInTheFuture() {
		assertThat(RedissonLockScripts.millis(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE / 4);
	}

}
