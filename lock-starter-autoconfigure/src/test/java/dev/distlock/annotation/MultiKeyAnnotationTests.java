package dev.distlock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockKeyException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code @DistributedLock} key expression that yields a collection or an array locks
 * every element together, each under the name prefix, with its own fencing token.
 */
@Timeout(30)
class MultiKeyAnnotationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local")
		.withBean(Transfers.class);

	@Test
	void collectionKeyLocksEveryElementUnderTheNameWithItsOwnToken() {
		this.contextRunner.run((context) -> {
			Transfers transfers = context.getBean(Transfers.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			Map<String, Long> tokens = transfers.transfer(List.of("B", "A"), () -> {
				for (String key : List.of("account:A", "account:B")) {
					assertThat(template.tryAcquire(busyCheck(key)))
						.as("%s from another thread while the transfer runs", key)
						.isEmpty();
				}
			});
			assertThat(tokens).containsOnlyKeys("account:A", "account:B");
			assertThat(tokens.values()).allMatch((token) -> token > 0);
			assertThat(template.tryAcquire(busyCheck("account:A"))).as("A after the transfer")
				.isPresent()
				.hasValueSatisfying(Lease::release);
		});
	}

	@Test
	void arrayKeyLocksEveryElement() {
		this.contextRunner.run((context) -> {
			Transfers transfers = context.getBean(Transfers.class);
			assertThat(transfers.arrays(new String[] { "x", "y" })).containsExactly("account:x,account:y");
		});
	}

	@Test
	void busyElementSkipsTheWholeCall() {
		this.contextRunner.run((context) -> {
			Transfers transfers = context.getBean(Transfers.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			// held by another thread: this one would re-enter it
			Lease busy = java.util.concurrent.CompletableFuture
				.supplyAsync(() -> template.acquire(LockRequest.of("account:B")))
				.join();
			try {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> transfers.transfer(Set.of("A", "B"), () -> {
					}))
					.withMessageContaining("account:A,account:B");
			}
			finally {
				busy.release();
			}
			assertThat(template.tryAcquire(busyCheck("account:A"))).as("A after the failed call")
				.isPresent()
				.hasValueSatisfying(Lease::release);
		});
	}

	@Test
	void emptyCollectionOrBlankElementRaisesLockKeyException() {
		this.contextRunner.run((context) -> {
			Transfers transfers = context.getBean(Transfers.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> transfers.transfer(List.of(), () -> {
			})).withMessageContaining("gave no key (an empty collection)");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> transfers.transfer(List.of("A", " "), () -> {
				}))
				.withMessageContaining("gave a blank string");
		});
	}

	private static LockRequest busyCheck(String key) {
		return LockRequest.builder(key).waitTime(Duration.ZERO).build();
	}

	public static class Transfers {

		@DistributedLock(name = "account", key = "#accounts", waitTime = "100ms")
		public Map<String, Long> transfer(java.util.Collection<String> accounts, Runnable whileLocked) {
			Lease lease = LockContext.currentLease();
			Map<String, Long> tokens = new java.util.HashMap<>();
			for (String account : accounts) {
				tokens.put("account:" + account, lease.fencingToken("account:" + account));
			}
			// on another thread, which does not re-enter; join() hands its assertion
			// errors on
			java.util.concurrent.CompletableFuture.runAsync(whileLocked).join();
			return tokens;
		}

		@DistributedLock(name = "account", key = "#accounts", waitTime = "0")
		public List<String> arrays(String[] accounts) {
			return List.of(LockContext.currentLease().key());
		}

	}

}
