package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.shedlock.AbstractDistlockLockProviderTests;
import io.etcd.jetcd.Client;

/**
 * ShedLock's provider test on a real etcd server started by the test; each node has its
 * own client, and so its own etcd leases.
 */
class EtcdDistlockLockProviderTests extends AbstractDistlockLockProviderTests {

	private final List<Client> clients = Collections.synchronizedList(new ArrayList<>());

	@Override
	protected LockProvider<?> createProvider() {
		Client client = EtcdCluster.shared().client();
		this.clients.add(client);
		return EtcdLockProvider.builder(client).build();
	}

	/**
	 * etcd leases count whole seconds, so the holder's process ends a fixed lease that
	 * ran out (docs/etcd.md), found by the lease clock, and another node may see it free
	 * a little later.
	 */
	@Override
	protected Duration releaseLag() {
		return Duration.ofMillis(200);
	}

	@Override
	protected void closeClients() {
		this.clients.forEach(Client::close);
	}

}
