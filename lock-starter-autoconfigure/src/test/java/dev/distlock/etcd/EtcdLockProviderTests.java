package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the contract does not cover: an etcd lease revoked behind the holder's back is
 * reported lost for every lock on it, an attempt that was not granted leaves no entry in
 * front of the next one, a waiter granted after a long wait and a lease extended beyond
 * its etcd lease keep their entry on the servers for the whole lease, a server that stops
 * answering fails an acquisition within its wait plus the call timeout, and an entry
 * written after its caller gave up is deleted once the write's reply comes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdLockProviderTests {

	private static final Duration CALL_TIMEOUT = Duration.ofMillis(500);

	private final List<Client> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private EtcdCluster own;

	@AfterEach
	void close() {
		this.templates.forEach(LockTemplate::close);
		this.clients.forEach(Client::close);
		if (this.own != null) {
			this.own.close();
		}
	}

	private LockTemplate process(EtcdCluster cluster) throws Exception {
		Client client = cluster.client();
		this.clients.add(client);
		// connected before the test starts: a new client's first call may take longer
		// than the short call timeout
		client.getKVClient().get(EtcdKeys.bytes("warm-up")).get(10, TimeUnit.SECONDS);
		EtcdLockProvider provider = EtcdLockProvider.builder(client).callTimeout(CALL_TIMEOUT).build();
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults()
					.withKeyPrefix("provider-tests:")
					.withCallTimeout(CALL_TIMEOUT)
					.withWatchdog(Duration.ofMillis(1500), null),
				List.of());
		this.templates.add(template);
		return template;
	}

	@Test
	void revokedEtcdLeaseIsReportedLostForEveryLockOnIt() throws Exception {
		LockTemplate holder = process(EtcdCluster.shared());
		LockTemplate other = process(EtcdCluster.shared());
		Lease first = holder.acquire(LockRequest.builder("revoked-a").waitTime(Duration.ZERO).build());
		Lease second = holder.acquire(LockRequest.builder("revoked-b").waitTime(Duration.ZERO).build());
		CountDownLatch lost = new CountDownLatch(2);
		first.onLost(lost::countDown);
		second.onLost(lost::countDown);
		Client admin = this.clients.get(0);
		KeyValue entry = admin.getKVClient()
			.get(EtcdKeys.bytes(new EtcdKeys(EtcdKeys.DEFAULT_ROOT).locks() + "provider-tests:revoked-a/"),
					GetOption.builder().isPrefix(true).build())
			.get(5, TimeUnit.SECONDS)
			.getKvs()
			.get(0);
		admin.getLeaseClient().revoke(entry.getLease()).get(5, TimeUnit.SECONDS);
		assertThat(lost.await(10, TimeUnit.SECONDS)).as("both holds on the revoked etcd lease reported lost").isTrue();
		assertThat(first.isValid()).isFalse();
		assertThat(second.isValid()).isFalse();
		try (Lease next = other.acquire(LockRequest.builder("revoked-a").waitTime(Duration.ZERO).build())) {
			assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
		}
	}

	@Test
	void busyTryOnceLeavesNoEntryInFrontOfItsNextAttempt() throws Exception {
		LockTemplate holder = process(EtcdCluster.shared());
		LockTemplate other = process(EtcdCluster.shared());
		for (int i = 0; i < 100; i++) {
			LockRequest request = LockRequest.builder("try-once-" + i).waitTime(Duration.ZERO).build();
			Lease held = holder.acquire(request);
			assertThat(other.tryAcquire(request)).as("round %d, while held", i).isEmpty();
			held.release();
			try (Lease next = other.tryAcquire(request)
				.orElseThrow(() -> new AssertionError("the key was still taken after its release"))) {
				assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			}
		}
	}

	@Test
	void waiterGrantedAfterALongWaitKeepsItsEntryForItsWholeFixedLease() throws Exception {
		LockTemplate holder = process(EtcdCluster.shared());
		LockTemplate waiter = process(EtcdCluster.shared());
		Lease held = holder.acquire(LockRequest.builder("long-wait").waitTime(Duration.ZERO).build());
		Thread releaser = new Thread(() -> {
			try {
				Thread.sleep(3500);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			held.release();
		});
		releaser.start();
		Duration lease = Duration.ofSeconds(5);
		try (Lease granted = waiter
			.acquire(LockRequest.builder("long-wait").lease(lease).waitTime(Duration.ofSeconds(10)).build())) {
			assertThat(secondsLeft("long-wait"))
				.as("seconds the entry's etcd lease has left right after a grant with a %s lease", lease)
				.isGreaterThanOrEqualTo(lease.toSeconds());
			assertThat(granted.isValid()).isTrue();
		}
		releaser.join();
	}

	@Test
	void leaseExtendedBeyondItsEtcdLeaseMovesTheEntryToALongerOne() throws Exception {
		LockTemplate holder = process(EtcdCluster.shared());
		try (Lease lease = holder
			.acquire(LockRequest.builder("extended").lease(Duration.ofSeconds(1)).waitTime(Duration.ZERO).build())) {
			assertThat(secondsLeft("extended")).as("seconds left on the etcd lease of a 1 s lease")
				.isLessThanOrEqualTo(2);
			lease.extend(Duration.ofSeconds(10));
			assertThat(secondsLeft("extended")).as("seconds left after extending the lease to 10 s")
				.isGreaterThanOrEqualTo(10);
			assertThat(lease.isValid()).isTrue();
		}
	}

	/** Seconds the servers still give the etcd lease of the one entry of a MUTEX key. */
	private long secondsLeft(String key) throws Exception {
		Client admin = this.clients.get(0);
		KeyValue entry = admin.getKVClient()
			.get(EtcdKeys.bytes(new EtcdKeys(EtcdKeys.DEFAULT_ROOT).queue("provider-tests:" + key, LockType.MUTEX)),
					GetOption.builder().isPrefix(true).build())
			.get(5, TimeUnit.SECONDS)
			.getKvs()
			.get(0);
		return admin.getLeaseClient()
			.timeToLive(entry.getLease(), LeaseOption.DEFAULT)
			.get(5, TimeUnit.SECONDS)
			.getTTL();
	}

	@Test
	void silentServerFailsAnAcquisitionWithinItsWaitPlusTheCallTimeoutAndTheLateEntryIsDeleted() throws Exception {
		this.own = EtcdCluster.start(1);
		LockTemplate holder = process(this.own);
		LockTemplate other = process(this.own);
		Duration wait = Duration.ofMillis(300);
		this.own.member(0).pause();
		long start = System.nanoTime();
		try {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> holder.acquire(LockRequest.builder("silent").waitTime(wait).build()));
		}
		finally {
			this.own.member(0).resume();
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to give up on a silent server")
			.isLessThan(wait.plus(CALL_TIMEOUT).plusSeconds(1));
		// the write went out before the pause ended, so it may apply now: it must not
		// keep the lock
		try (Lease lease = other.acquire(LockRequest.builder("silent").waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(lease.isValid()).isTrue();
		}
		Client admin = this.clients.get(0);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (admin.getKVClient()
			.get(EtcdKeys.bytes(new EtcdKeys(EtcdKeys.DEFAULT_ROOT).locks()),
					GetOption.builder().isPrefix(true).withCountOnly(true).build())
			.get(5, TimeUnit.SECONDS)
			.getCount() != 0) {
			assertThat(System.nanoTime()).as("entries left 5 s after the server answered again").isLessThan(deadline);
			Thread.sleep(50);
		}
	}

}
