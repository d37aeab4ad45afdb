package dev.distlock.redisson;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.AbstractCoordinationContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.api.RedissonClient;

/**
 * The coordination contract on the shared Redis (127.0.0.1:6379) through Redisson; each
 * provider has its own {@link RedissonClient}, as each process would.
 */
class RedissonCoordinationContractTests extends AbstractCoordinationContractTests<LockProvider<?>> {

	private static RedissonClient admin;

	@BeforeAll
	static void connect() {
		admin = RedissonClients.shared();
	}

	@AfterAll
	static void disconnect() {
		RedissonClients.shutdown(admin);
	}

	/** Fencing counters outlive their locks by design; tests leave none behind. */
	private final List<RedissonClient> latchClients = Collections.synchronizedList(new ArrayList<>());

	@Override
	protected void closeClients() {
		this.latchClients.forEach(RedissonClients::shutdown);
		admin.getKeys().deleteByPattern("*" + this.prefix + "*");
	}

	@Override
	protected LockProvider<?> createProvider() {
		RedissonClient client = RedissonClients.shared();
		return RedissonClients.owning(new RedissonLockProvider(client), client);
	}

	@Override
	protected LatchProvider createLatchProvider() {
		RedissonClient client = RedissonClients.shared();
		this.latchClients.add(client);
		return new RedissonLatchProvider(client);
	}

}
