package dev.distlock.redisson;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.test.ForwardingLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watchdog renewals of many quorum leases while one node of three does not answer (its
 * replies held back by a proxy): each lease stands on the two nodes that do, within one
 * node timeout for the whole batch, so none is lost. Renewing them one after another,
 * each waiting a node timeout for the silent node, would take longer than the lease. Runs
 * its own {@code redis-server} processes.
 */
@Tag("fault")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonQuorumRenewalTests {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(200);

	private static final Duration WATCHDOG_LEASE = Duration.ofMillis(1500);

	private static final int LEASES = 12;

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void aSilentNodeFailsNoLeaseTheOtherNodesRenew() throws Exception {
		RedisProcesses servers = RedisProcesses.start(3);
		this.resources.add(servers);
		DelayingProxy silent = DelayingProxy.start(URI.create(servers.address(2)));
		this.resources.add(silent);
		RedissonQuorumLockProvider provider = RedissonQuorumLockProvider
			.connect(List.of(servers.address(0), servers.address(1), silent.address()), NODE_TIMEOUT, null);
		this.resources.add(provider::close);
		LockSettings settings = LockSettings.defaults()
			.withKeyPrefix("renewal:" + UUID.randomUUID().toString().substring(0, 8) + ":")
			.withWatchdog(WATCHDOG_LEASE, WATCHDOG_LEASE.dividedBy(3));
		AtomicLong renewalBatches = new AtomicLong();
		LockProvider<?> counted = new ForwardingLockProvider(provider) {

			@Override
			public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
				renewalBatches.incrementAndGet();
				return super.renewAll(locks, lease);
			}

		};
		LockTemplate template = new LockTemplate(List.of(counted), provider.name(), settings, List.of());
		this.resources.add(template);
		// fresh servers, connections and scripts: on a busy machine the first calls may
		// outlast the 200 ms node timeout, which is not what this test is about
		long warmUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (true) {
			try {
				template.acquire(LockRequest.builder("warm").waitTime(Duration.ofSeconds(1)).build()).release();
				break;
			}
			catch (LockAcquisitionException ex) {
				if (System.nanoTime() - warmUntil > 0) {
					throw ex;
				}
			}
		}
		List<Lease> leases = new ArrayList<>();
		for (int i = 0; i < LEASES; i++) {
			leases.add(template.acquire(LockRequest.builder("key-" + i).waitTime(Duration.ofSeconds(5)).build()));
		}

		silent.delayReplies(Duration.ofSeconds(30));
		long batchesBefore = renewalBatches.get();
		Thread.sleep(WATCHDOG_LEASE.multipliedBy(3).toMillis());
		long batches = renewalBatches.get() - batchesBefore;

		assertThat(batches).as("renewal batches sent while the node was silent").isGreaterThanOrEqualTo(2);
		assertThat(leases).as("leases renewed on two of three nodes while the third did not answer")
			.allSatisfy((lease) -> assertThat(lease.isValid()).as("%s is valid", lease.key()).isTrue());
		silent.delayReplies(Duration.ZERO);
		leases.forEach(Lease::release);
	}

}
