package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockType;
import dev.distlock.test.AbstractLockProviderContractTests;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The provider contract on a real etcd server started by the test (one member, shared per
 * test JVM). Every provider has its own client and so its own etcd leases, as separate
 * processes would. After every test no entry of the test's keys may be left while the
 * clients are still open, which proves that timed-out, try-once, expired and released
 * attempts all delete their entries.
 */
class EtcdLockProviderContractTests extends AbstractLockProviderContractTests<EtcdLockProvider> {

	private static Client admin;

	private final List<Client> clients = Collections.synchronizedList(new ArrayList<>());

	@BeforeAll
	static void connect() {
		admin = EtcdCluster.shared().client();
	}

	@AfterAll
	static void disconnect() {
		admin.close();
	}

	@Override
	protected EtcdLockProvider createProvider() {
		Client client = EtcdCluster.shared().client();
		this.clients.add(client);
		return EtcdLockProvider.builder(client).build();
	}

	@Override
	protected void breakLock(String fullKey, LockType type) throws Exception {
		String queue = new EtcdKeys(EtcdKeys.DEFAULT_ROOT).queue(fullKey, type);
		admin.getKVClient()
			.delete(EtcdKeys.bytes(queue), DeleteOption.builder().isPrefix(true).build())
			.get(5, TimeUnit.SECONDS);
	}

	@AfterEach
	void noEntryIsLeftWhileClientsAreOpen() throws InterruptedException {
		try {
			String keys = new EtcdKeys(EtcdKeys.DEFAULT_ROOT).locks() + EtcdKeys.encode(this.prefix);
			awaitTrue("no lock entries left for " + this.prefix, Duration.ofSeconds(5), () -> {
				try {
					return admin.getKVClient()
						.get(EtcdKeys.bytes(keys), GetOption.builder().isPrefix(true).withCountOnly(true).build())
						.get(5, TimeUnit.SECONDS)
						.getCount() == 0;
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
		}
		finally {
			this.clients.forEach(Client::close);
		}
	}

}
