package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An acquisition whose queueing transaction reaches the servers only after the caller
 * gave up (and after its cleanup ran) leaves no entry behind, whether the transaction's
 * reply then comes or fails: the entry would head the key's queue on an etcd lease of the
 * process that the process keeps alive, and block the key for every process.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdLateTransactionTests {

	private static final Duration CALL_TIMEOUT = Duration.ofMillis(300);

	/** Long enough that an entry left on its etcd lease outlives every wait below. */
	private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(20);

	private final List<Client> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	@AfterEach
	void close() {
		this.templates.forEach(LockTemplate::close);
		this.clients.forEach(Client::close);
	}

	@ParameterizedTest(name = "reply fails after landing: {0}")
	@ValueSource(booleans = { true, false })
	void transactionLandingAfterItsAttemptGaveUpLeavesNoEntry(boolean replyFails) throws Exception {
		String key = "late-txn-" + replyFails + "-" + System.nanoTime();
		EtcdRpcs rpcs = new EtcdRpcs();
		LockTemplate late = process(rpcs);
		LockTemplate other = process(new EtcdRpcs());
		// a lock the process holds meanwhile: the watchdog keeps the process's etcd lease
		// alive, the lease the late entry is attached to
		Lease kept = late.acquire(LockRequest.builder(key + "-kept").waitTime(Duration.ofSeconds(10)).build());
		EtcdRpcs.LateTransaction held = rpcs.holdNextTransaction(replyFails);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> late.acquire(LockRequest.builder(key).waitTime(Duration.ofMillis(200)).build()));
		assertThat(held.awaitHeld(10)).as("the queueing transaction was started").isTrue();
		held.land();
		assertThat(held.awaitAnswered(30)).as("the held transaction was answered").isTrue();

		Lease lease = other.tryAcquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build()).orElse(null);
		assertThat(lease)
			.as("a lock of another process on the key after the late transaction landed; queue: %s", entries(key))
			.isNotNull();
		lease.release();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!entries(key).isEmpty()) {
			assertThat(System.nanoTime()).as("entries of %s left 10 s after its release: %s", key, entries(key))
				.isLessThan(deadline);
			Thread.sleep(50);
		}
		assertThat(kept.isValid()).isTrue();
		kept.release();
	}

	@ParameterizedTest(name = "reply fails after landing: {0}")
	@ValueSource(booleans = { true, false })
	void transactionLandingWhileTheNextAttemptHoldsLeavesItsEntryAlone(boolean replyFails) throws Exception {
		String key = "late-next-" + replyFails + "-" + System.nanoTime();
		EtcdRpcs rpcs = new EtcdRpcs();
		LockTemplate late = process(rpcs);
		LockTemplate other = process(new EtcdRpcs());
		late.acquire(LockRequest.builder(key + "-warm").waitTime(Duration.ofSeconds(10)).build()).release();
		EtcdRpcs.LateTransaction held = rpcs.holdNextTransaction(replyFails);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> late.acquire(LockRequest.builder(key).waitTime(Duration.ofMillis(200)).build()));
		assertThat(held.awaitHeld(10)).as("the queueing transaction was started").isTrue();
		Lease next = late.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(10)).build());
		held.land();
		assertThat(held.awaitAnswered(30)).as("the held transaction was answered").isTrue();
		// the late attempt's cleanup runs in the background: give it time to do harm
		Thread.sleep(500);
		assertThat(entries(key)).as("entries while the next attempt holds the key").hasSize(1);
		assertThat(createRevisions(key)).as("creation revision of the holder's entry")
			.containsExactly(next.fencingToken());
		assertThat(other.tryAcquire(LockRequest.builder(key).waitTime(Duration.ZERO).build()))
			.as("another process's try while the next attempt holds the key")
			.isEmpty();
		assertThat(next.isValid()).isTrue();
		next.release();
		Lease after = other.tryAcquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(5)).build()).orElse(null);
		assertThat(after).as("a lock of another process after the release; queue: %s", entries(key)).isNotNull();
		assertThat(after.fencingToken()).isGreaterThan(next.fencingToken());
		after.release();
	}

	@Test
	void entryLeftUnderTheProcessNameDoesNotStopItsNextAttempt() throws Exception {
		String key = "left-" + System.nanoTime();
		LockTemplate template = process(new EtcdRpcs());
		Lease first = template.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(10)).build());
		String name = entries(key).get(0);
		first.release();
		// what a write of an earlier attempt that landed late leaves until its cleanup
		// deletes it: the name, another owner's value
		Client admin = this.clients.get(0);
		long left = admin.getKVClient()
			.put(EtcdKeys.bytes(name), EtcdKeys.bytes("owner=an-earlier-attempt"))
			.get(5, TimeUnit.SECONDS)
			.getHeader()
			.getRevision();
		Thread cleanup = new Thread(() -> {
			try {
				Thread.sleep(300);
				admin.getKVClient().delete(EtcdKeys.bytes(name)).get(5, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		cleanup.start();
		try (Lease next = template.acquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(10)).build())) {
			assertThat(next.fencingToken()).as("token of the attempt after the left entry").isGreaterThan(left);
			assertThat(next.isValid()).isTrue();
		}
		cleanup.join();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!entries(key).isEmpty()) {
			assertThat(System.nanoTime()).as("entries of %s left after its release", key).isLessThan(deadline);
			Thread.sleep(50);
		}
	}

	private List<Long> createRevisions(String key) throws Exception {
		return this.clients.get(0)
			.getKVClient()
			.get(EtcdKeys.bytes(new EtcdKeys(EtcdKeys.DEFAULT_ROOT).queue("late-tests:" + key, LockType.MUTEX)),
					GetOption.builder().isPrefix(true).withKeysOnly(true).build())
			.get(5, TimeUnit.SECONDS)
			.getKvs()
			.stream()
			.map((entry) -> entry.getCreateRevision())
			.toList();
	}

	private List<String> entries(String key) throws Exception {
		return this.clients.get(0)
			.getKVClient()
			.get(EtcdKeys.bytes(new EtcdKeys(EtcdKeys.DEFAULT_ROOT).queue("late-tests:" + key, LockType.MUTEX)),
					GetOption.builder().isPrefix(true).withKeysOnly(true).build())
			.get(5, TimeUnit.SECONDS)
			.getKvs()
			.stream()
			.map((entry) -> entry.getKey().toString())
			.toList();
	}

	private LockTemplate process(EtcdRpcs rpcs) throws Exception {
		Client client = EtcdCluster.shared().client(rpcs);
		this.clients.add(client);
		// connected before the test starts: a new client's first call may take longer
		// than the short call timeout
		client.getKVClient().get(EtcdKeys.bytes("warm-up")).get(10, TimeUnit.SECONDS);
		EtcdLockProvider provider = EtcdLockProvider.builder(client).callTimeout(CALL_TIMEOUT).build();
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults()
					.withKeyPrefix("late-tests:")
					.withCallTimeout(CALL_TIMEOUT)
					.withWatchdog(WATCHDOG_LEASE, null),
				List.of());
		this.templates.add(template);
		return template;
	}

}
