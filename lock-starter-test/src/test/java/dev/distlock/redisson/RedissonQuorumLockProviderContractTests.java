package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.LockType;
import dev.distlock.test.AbstractLockProviderContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.redisson.api.RedissonClient;

/**
 * The provider contract on the quorum lock over three {@code redis-server} processes this
 * test starts (MUTEX only; the other types must be refused). Tagged {@code fault} because
 * it runs its own servers.
 */
@Tag("fault")
class RedissonQuorumLockProviderContractTests extends AbstractLockProviderContractTests<RedissonQuorumLockProvider> {

	private static RedisProcesses servers;

	private static final List<RedissonClient> admins = new ArrayList<>();

	@BeforeAll
	static void startServers() throws Exception {
		servers = RedisProcesses.start(3);
		for (String address : servers.addresses()) {
			admins.add(RedissonClients.create(address));
		}
	}

	@AfterAll
	static void stopServers() throws Exception {
		admins.forEach(RedissonClients::shutdown);
		admins.clear();
		servers.close();
	}

	@Override
	protected RedissonQuorumLockProvider createProvider() {
		return RedissonQuorumLockProvider.connect(servers.addresses(), Duration.ofMillis(500), null);
	}

	/** Deletes the lock on every node. */
	@Override
	protected void breakLock(String fullKey, LockType type) {
		for (RedissonClient admin : admins) {
			admin.getKeys().delete(RedissonLockKeys.of(fullKey, LockType.MUTEX).lock());
		}
	}

}
