package dev.distlock.redis;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.ForwardingLockProvider;
import io.lettuce.core.RedisCommandInterruptedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread interrupted while its release is on its way to Redis leaves the key free when
 * {@code release()} returns: Lettuce gives such a call up with a
 * {@link RedisCommandInterruptedException} (and skips a cancelled command it has not
 * written yet), and the core sends the release again. Another process acquires the key at
 * once, inside the 30 s watchdog lease that would otherwise keep it.
 */
class RedisInterruptDuringReleaseTests {

	private final LettuceConnectionFactory factory = RedisTestConnections
		.standalone(URI.create("redis://127.0.0.1:6379"), Duration.ofSeconds(5));

	private final String prefix = "release-interrupt:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	@AfterEach
	void close() {
		this.factory.destroy();
	}

	@Test
	void threadInterruptedDuringUnlockLeavesTheKeyFree() throws Exception {
		LockSettings settings = LockSettings.defaults().withKeyPrefix(this.prefix);
		LettuceInterruptedRelease holderSide = new LettuceInterruptedRelease(new RedisLockProvider(this.factory));
		try (LockTemplate holder = new LockTemplate(List.of(holderSide), "redis", settings, List.of());
				LockTemplate other = new LockTemplate(List.of(new RedisLockProvider(this.factory)), "redis", settings,
						List.of())) {
			AtomicBoolean interruptedAfter = new AtomicBoolean();
			Thread releasing = new Thread(() -> {
				Lease lease = holder.acquire(LockRequest.builder("k").waitTime(Duration.ofSeconds(5)).build());
				lease.release();
				interruptedAfter.set(Thread.currentThread().isInterrupted());
			});
			releasing.start();
			assertThat(holderSide.releaseBlocked.await(10, TimeUnit.SECONDS)).as("release reached the client").isTrue();
			releasing.interrupt();
			releasing.join(TimeUnit.SECONDS.toMillis(10));
			assertThat(releasing.isAlive()).as("release returned").isFalse();
			assertThat(interruptedAfter).as("the releasing thread's interrupt, kept").isTrue();
			Optional<Lease> next = other.tryAcquire(LockRequest.builder("k").waitTime(Duration.ZERO).build());
			assertThat(next).as("another process, right after the interrupted release").isPresent();
			next.get().release();
		}
	}

	/**
	 * Redis' provider whose first release waits until its thread is interrupted and then
	 * fails as Lettuce fails a command cancelled before it was written: the interrupt
	 * status set, a {@link RedisCommandInterruptedException}, nothing sent.
	 */
	private static final class LettuceInterruptedRelease extends ForwardingLockProvider {

		final CountDownLatch releaseBlocked = new CountDownLatch(1);

		private final AtomicInteger releases = new AtomicInteger();

		LettuceInterruptedRelease(LockProvider<?> delegate) {
			super(delegate);
		}

		@Override
		public void release(HeldLock lock) throws Exception {
			if (this.releases.incrementAndGet() > 1) {
				super.release(lock);
				return;
			}
			this.releaseBlocked.countDown();
			try {
				new CountDownLatch(1).await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedisCommandInterruptedException(ex);
			}
		}

	}

}
