package dev.distlock.etcd;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What released locks leave behind: the common case of a lock per business object, many
 * distinct keys each locked once. A lock is nothing but its queue entries, and a release
 * deletes its entry, so no key of a released lock is left; the etcd leases the entries
 * were attached to expire by themselves. Fencing tokens are creation revisions, so a key
 * locked again after its entries were deleted still gets a higher one.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EtcdResidueTests {

	private static final int KEYS = 2_000;

	private final String root = "/residue-" + UUID.randomUUID().toString().substring(0, 8);

	private Client client;

	private LockTemplate template;

	@BeforeEach
	void connect() {
		this.client = EtcdCluster.shared().client();
		EtcdLockProvider provider = EtcdLockProvider.builder(this.client).root(this.root).build();
		this.template = new LockTemplate(List.of(provider), provider.name(), LockSettings.defaults().withKeyPrefix(""),
				List.of());
	}

	@AfterEach
	void close() {
		this.template.close();
		this.client.close();
	}

	@Test
	void releasedLocksOfDistinctKeysLeaveNoKeyAndTokensStillRise() throws Exception {
		String prefix = "order/";
		long firstToken = 0;
		for (int i = 0; i < KEYS; i++) {
			LockType type = LockType.values()[i % LockType.values().length];
			Lease lease = this.template
				.acquire(LockRequest.builder(prefix + i).type(type).waitTime(Duration.ZERO).build());
			if (i == 0) {
				firstToken = lease.fencingToken();
			}
			lease.release();
		}
		assertThat(this.client.getKVClient()
			.get(EtcdKeys.bytes(this.root + "/"), GetOption.builder().isPrefix(true).withCountOnly(true).build())
			.get(10, TimeUnit.SECONDS)
			.getCount()).as("keys under %s after %d locks were taken and released", this.root, KEYS).isZero();

		try (Lease again = this.template.acquire(LockRequest.builder(prefix + 0).waitTime(Duration.ZERO).build())) {
			assertThat(again.fencingToken()).as("token of a key locked again after its entries were deleted")
				.isGreaterThan(firstToken);
		}
	}

}
