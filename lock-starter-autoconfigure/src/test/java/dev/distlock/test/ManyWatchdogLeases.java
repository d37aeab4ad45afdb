package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseRenewer;
import dev.distlock.core.LockProvider;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds 10,000 watchdog leases at once through one template and checks what the lease clock costs: at most two
 * threads of distlock's own (the clock and one renewal thread) and at most 100 backend calls per renewal period,
 * while every lease stays valid across several periods.
 */
public final class ManyWatchdogLeases {

	public static final int LEASES = 10_000;

	private ManyWatchdogLeases() {
	}

	public static void check(LockProvider<?> provider) throws Exception {
		Duration watchdogLease = Duration.ofSeconds(6);
		Duration interval = Duration.ofSeconds(2);
		LeaseRenewer renewer = new LeaseRenewer();
		Set<String> before = distlockThreads();
		String prefix = "many:" + UUID.randomUUID().toString().substring(0, 8) + ":";
		try (LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(prefix).withWatchdog(watchdogLease, interval), renewer,
				List.of())) {
			List<Lease> leases = new ArrayList<>(LEASES);
			for (int i = 0; i < LEASES; i++) {
				leases.add(template.acquire(LockRequest.builder("k" + i).waitTime(Duration.ZERO).build()));
			}
			long batchesAtStart = renewer.renewalBatches();
			long start = System.nanoTime();
			Thread.sleep(interval.multipliedBy(3).plusMillis(500).toMillis());
			long periods = Math.max(1, Duration.ofNanos(System.nanoTime() - start).dividedBy(interval));
			long batches = renewer.renewalBatches() - batchesAtStart;
			Set<String> ours = distlockThreads();
			ours.removeAll(before);
			assertThat(ours).as("distlock's own threads while holding %d watchdog leases", LEASES).hasSizeLessThanOrEqualTo(2);
			assertThat(batches).as("renewals went to the backend in batches").isPositive();
			assertThat(batches / (double) periods).as("backend calls per renewal period (%d in %d periods)", batches,
					periods).isLessThanOrEqualTo(100);
			assertThat(leases).as("every lease renewed, none lost").allMatch(Lease::isValid);
			assertThat(renewer.watchedLeases()).isEqualTo(LEASES);
			leases.forEach(Lease::release);
			assertThat(template.activeLeases()).isEmpty();
			assertThat(renewer.watchedLeases()).isZero();
		}
	}

	private static Set<String> distlockThreads() {
		return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
			.filter((name) -> name.startsWith("distlock-")).collect(Collectors.toSet());
	}

}
