package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.RenewalOutcome;

/**
 * Holds 10,000 watchdog leases at once through one template for several renewal periods
 * and reports what the lease clock cost: distlock's own threads, renewal batches (backend
 * calls) per period, and how many leases stayed valid. The tests that use it assert the
 * limits.
 */
public final class ManyWatchdogLeases {

	public static final int LEASES = 10_000;

	private ManyWatchdogLeases() {
	}

	/**
	 * What holding the leases cost.
	 *
	 * @param ownThreads distlock's threads started meanwhile
	 * @param batchesPerPeriod renewal batches (backend calls) per renewal period
	 * @param valid leases still valid at the end
	 * @param watched watchdog leases held at the end (each one watched by the lease
	 * clock)
	 * @param leftAfterRelease leases the template still held after all were released
	 */
	public record Result(Set<String> ownThreads, double batchesPerPeriod, long valid, int watched,
			int leftAfterRelease) {
	}

	public static Result hold(LockProvider<?> provider) throws Exception {
		Duration watchdogLease = Duration.ofSeconds(6);
		Duration interval = Duration.ofSeconds(2);
		AtomicLong batches = new AtomicLong();
		LockProvider<?> counted = new ForwardingLockProvider(provider) {

			@Override
			public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
				batches.incrementAndGet();
				return super.renewAll(locks, lease);
			}

		};
		Set<String> before = distlockThreads();
		String prefix = "many:" + UUID.randomUUID().toString().substring(0, 8) + ":";
		try (LockTemplate template = new LockTemplate(List.of(counted), provider.name(),
				LockSettings.defaults().withKeyPrefix(prefix).withWatchdog(watchdogLease, interval), List.of())) {
			List<Lease> leases = new ArrayList<>(LEASES);
			for (int i = 0; i < LEASES; i++) {
				leases.add(template.acquire(LockRequest.builder("k" + i).waitTime(Duration.ZERO).build()));
			}
			long batchesAtStart = batches.get();
			long start = System.nanoTime();
			Thread.sleep(interval.multipliedBy(3).plusMillis(500).toMillis());
			long periods = Math.max(1, Duration.ofNanos(System.nanoTime() - start).dividedBy(interval));
			double batchesPerPeriod = (batches.get() - batchesAtStart) / (double) periods;
			Set<String> ours = distlockThreads();
			ours.removeAll(before);
			long valid = leases.stream().filter(Lease::isValid).count();
			int watched = (int) template.activeLeases().stream().filter(LeaseSnapshot::watchdog).count();
			leases.forEach(Lease::release);
			return new Result(ours, batchesPerPeriod, valid, watched, template.activeLeases().size());
		}
	}

	private static Set<String> distlockThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith("distlock-"))
			.collect(Collectors.toSet());
	}

}
