package dev.distlock.redis;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release made by an interrupted thread still frees the lock: cancellation interrupts
 * threads (a disposed Reactor subscription's worker, {@code Future.cancel(true)}, an
 * executor's {@code shutdownNow}), and a release that gave up because of it would leave
 * the lock held until its lease ran out (a cancelled {@code Flux}'s lock, for instance).
 * The thread's interrupt is kept for its own code.
 */
class RedisReleaseOnInterruptedThreadTests {

	private final LettuceConnectionFactory factory = RedisTestConnections
		.standalone(URI.create("redis://127.0.0.1:6379"), Duration.ofSeconds(5));

	private final String prefix = "interrupted:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	@AfterEach
	void close() {
		this.factory.destroy();
	}

	@Test
	void aReleaseFromAnInterruptedThreadFreesTheLockAndKeepsTheInterrupt() {
		LockSettings settings = LockSettings.defaults().withKeyPrefix(this.prefix);
		try (LockTemplate holder = new LockTemplate(List.of(new RedisLockProvider(this.factory)), "redis", settings,
				List.of());
				LockTemplate other = new LockTemplate(List.of(new RedisLockProvider(this.factory)), "redis", settings,
						List.of())) {
			Lease lease = holder.acquire(LockRequest.builder("k").waitTime(Duration.ofSeconds(5)).build());
			Thread.currentThread().interrupt();
			try {
				lease.release();
				assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt, kept").isTrue();
			}
			finally {
				Thread.interrupted();
			}
			// a wait well inside the 30 s watchdog lease: only a release frees the key in
			// time, on a loaded machine too
			Optional<Lease> next = other.tryAcquire(LockRequest.builder("k").waitTime(Duration.ofSeconds(5)).build());
			assertThat(next).as("another process, right after the interrupted thread's release").isPresent();
			next.get().release();
		}
	}

}
