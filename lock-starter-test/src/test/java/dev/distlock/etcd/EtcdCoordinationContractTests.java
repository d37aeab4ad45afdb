package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.test.AbstractCoordinationContractTests;
import io.etcd.jetcd.Client;

/**
 * The coordination contract on a real etcd server started by the test; every provider has
 * its own client, as separate processes would.
 */
class EtcdCoordinationContractTests extends AbstractCoordinationContractTests<EtcdLockProvider> {

	private final List<Client> clients = Collections.synchronizedList(new ArrayList<>());

	@Override
	protected EtcdLockProvider createProvider() {
		return EtcdLockProvider.builder(newClient()).build();
	}

	@Override
	protected LatchProvider createLatchProvider() {
		return new EtcdLatchProvider(newClient(), EtcdKeys.DEFAULT_ROOT, Duration.ofSeconds(1));
	}

	private Client newClient() {
		Client client = EtcdCluster.shared().client();
		this.clients.add(client);
		return client;
	}

	@Override
	protected void closeClients() {
		this.clients.forEach(Client::close);
	}

	/**
	 * The servers delete expired leases, and the latches on them, at a check every 500
	 * ms.
	 */
	@Override
	protected Duration latchExpiryGrace() {
		return Duration.ofSeconds(2);
	}

}
