package dev.distlock.redisson;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockWaiter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prints (never asserts) one thread's uncontended acquire+release pairs per second
 * through {@link LockTemplate} on the {@code redisson} provider, next to raw Redisson
 * {@code RLock} and {@code RFencedLock} lock/unlock on the same client in the same run.
 * Tagged {@code soak}: a measurement, not a check.
 */
@Tag("soak")
class RedissonThroughputTests {

	private static final Duration ROUND = Duration.ofSeconds(1);

	private static final int ROUNDS = 5;

	@Test
	void printsPairsPerSecondOfTheProviderAndOfRawRedisson() {
		RedissonClient client = RedissonClients.shared();
		String prefix = "tp:" + UUID.randomUUID().toString().substring(0, 8) + ":";
		RedissonLockProvider provider = new RedissonLockProvider(client);
		try (LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(prefix), List.of())) {
			LockRequest fixedLease = LockRequest.builder("template")
				.lease(Duration.ofSeconds(30))
				.waitTime(Duration.ZERO)
				.build();
			LockRequest watchdog = LockRequest.builder("watchdog").waitTime(Duration.ZERO).build();
			RLock raw = client.getLock(prefix + "raw");
			RLock fenced = client.getFencedLock(prefix + "fenced");
			Runnable viaTemplate = () -> template.acquire(fixedLease).release();
			Runnable viaTemplateWatchdog = () -> template.acquire(watchdog).release();
			Runnable viaProvider = () -> {
				// one attempt per acquisition, as the core makes them: its calls'
				// deadline starts with it
				dev.distlock.core.spi.LockAttempt attempt = new dev.distlock.core.spi.LockAttempt(prefix + "provider",
						dev.distlock.core.LockType.MUTEX, 1, Duration.ofSeconds(30), "tp");
				try {
					provider.release(provider.acquire(attempt, LockWaiter.tryOnce()));
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			};
			Runnable rawLock = () -> {
				raw.lock(30, TimeUnit.SECONDS);
				raw.unlock();
			};
			Runnable rawFenced = () -> {
				fenced.lock(30, TimeUnit.SECONDS);
				fenced.unlock();
			};
			List<Runnable> variants = List.of(viaTemplate, viaTemplateWatchdog, rawLock, rawFenced, viaProvider);
			double[][] results = new double[variants.size()][ROUNDS];
			for (int round = 0; round < ROUNDS; round++) {
				// interleaved and rotated, so that load from other processes on the
				// machine, garbage collection and position in the round hit every variant
				// alike
				for (int i = 0; i < variants.size(); i++) {
					int variant = (i + round) % variants.size();
					results[variant][round] = pairsPerSecond(variants.get(variant));
				}
			}
			System.out.printf(
					"One thread, uncontended acquire+release pairs/s (median of %d rounds of %d ms): "
							+ "LockTemplate+redisson (30s lease) %.0f, LockTemplate+redisson (watchdog) %.0f, "
							+ "RedissonLockProvider tryAcquire/release without the template %.0f, "
							+ "raw RLock lock/unlock %.0f, raw RFencedLock lock/unlock %.0f%n",
					ROUNDS, ROUND.toMillis(), median(results[0]), median(results[1]), median(results[4]),
					median(results[2]), median(results[3]));
			assertThat(median(results[0])).isPositive();
			assertThat(median(results[2])).isPositive();
		}
		finally {
			client.getKeys().deleteByPattern("*" + prefix + "*");
			RedissonClients.shutdown(client);
		}
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		java.util.Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

	private static double pairsPerSecond(Runnable pair) {
		long warmUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
		while (System.nanoTime() < warmUp) {
			pair.run();
		}
		long start = System.nanoTime();
		long end = start + ROUND.toNanos();
		long pairs = 0;
		long now;
		do {
			pair.run();
			pairs++;
			now = System.nanoTime();
		}
		while (now < end);
		return pairs / ((now - start) / 1e9);
	}

}
