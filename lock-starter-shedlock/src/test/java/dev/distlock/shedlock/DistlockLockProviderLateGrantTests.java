package dev.distlock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.AttemptOutcome;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockWaiter;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A grant whose reply comes after its {@code lockAtMostFor} ran out: distlock refuses to
 * run work under it, and the provider answers ShedLock as its own providers would, with a
 * lock that is already over.
 */
class DistlockLockProviderLateGrantTests {

	@Test
	void grantAnsweredAfterLockAtMostForIsALockThatIsAlreadyOver() {
		AtomicBoolean slow = new AtomicBoolean(true);
		ForwardingLockProvider lateReplies = new ForwardingLockProvider(new LocalLockProvider()) {

			@Override
			public AttemptOutcome<HeldLock> tryAcquire(LockAttempt attempt) throws Exception {
				AttemptOutcome<HeldLock> outcome = super.tryAcquire(attempt);
				delayOnce();
				return outcome;
			}

			@Override
			public @Nullable HeldLock acquire(LockAttempt attempt, LockWaiter waiter) throws Exception {
				HeldLock held = super.acquire(attempt, waiter);
				delayOnce();
				return held;
			}

			private void delayOnce() throws InterruptedException {
				if (slow.getAndSet(false)) {
					TimeUnit.MILLISECONDS.sleep(300); // the reply travels longer than
														// lockAtMostFor
				}
			}

		};
		try (LockTemplate template = new LockTemplate(List.of(lateReplies), lateReplies.name(),
				LockSettings.defaults().withKeyPrefix("late-shedlock:"), List.of())) {
			DistlockLockProvider provider = new DistlockLockProvider(template);
			Optional<SimpleLock> late = provider
				.lock(new LockConfiguration(Instant.now(), "job", Duration.ofMillis(100), Duration.ZERO));
			assertThat(late).as("a lock, as ShedLock's providers give for a lockAtMostFor that passed").isPresent();
			assertThat(slow).as("the grant was delayed").isFalse();
			assertThat(late.get().extend(Duration.ofSeconds(10), Duration.ZERO)).as("extending it").isEmpty();
			assertThatIllegalStateException().as("using it twice").isThrownBy(late.get()::unlock);

			Optional<SimpleLock> next = provider
				.lock(new LockConfiguration(Instant.now(), "job", Duration.ofSeconds(10), Duration.ZERO));
			assertThat(next).as("the key after the late grant").isPresent();
			next.get().unlock();
		}
	}

}
