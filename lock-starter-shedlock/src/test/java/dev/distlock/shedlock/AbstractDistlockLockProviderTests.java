package dev.distlock.shedlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * ShedLock's own published provider test
 * ({@link AbstractExtensibleLockProviderIntegrationTest}, which includes
 * {@code AbstractLockProviderIntegrationTest}), unchanged, run on
 * {@link DistlockLockProvider}. A backend's test supplies {@link #createProvider()}; each
 * call stands for another process. Whether a lock is taken is asked of a second process,
 * the way another node of a scheduled cluster would find it: by trying it without
 * waiting.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractDistlockLockProviderTests extends AbstractExtensibleLockProviderIntegrationTest {

	private final String prefix = "shedlock:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private LockTemplate scheduler;

	private LockTemplate otherNode;

	private DistlockLockProvider lockProvider;

	/**
	 * A new provider on the shared backend with a client of its own.
	 * @return the provider
	 */
	protected abstract LockProvider<?> createProvider() throws Exception;

	/**
	 * How long the other node may wait for a lock that should be free: zero where the
	 * backend frees an expired lease itself.
	 * @return the wait
	 */
	protected Duration releaseLag() {
		return Duration.ZERO;
	}

	/**
	 * Closes the backend clients the providers were made with, after both templates are
	 * closed.
	 */
	protected void closeClients() throws Exception {
	}

	@BeforeEach
	void startNodes() throws Exception {
		this.scheduler = template(createProvider());
		this.otherNode = template(createProvider());
		this.lockProvider = new DistlockLockProvider(this.scheduler);
	}

	@AfterEach
	void stopNodes() throws Exception {
		this.scheduler.close();
		this.otherNode.close();
		this.scheduler.defaultProvider().close();
		this.otherNode.defaultProvider().close();
		closeClients();
	}

	private LockTemplate template(LockProvider<?> provider) {
		// a generous call timeout: a node's first call also connects, which takes more
		// than the default second on a loaded machine
		return new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix).withCallTimeout(Duration.ofSeconds(10)), List.of());
	}

	@Override
	protected ExtensibleLockProvider getLockProvider() {
		return this.lockProvider;
	}

	@Override
	protected void assertUnlocked(String lockName) {
		Optional<Lease> probe = this.otherNode.tryAcquire(probe(lockName, releaseLag()));
		probe.ifPresent(Lease::release);
		if (probe.isEmpty()) {
			throw new AssertionError("Lock '" + lockName + "' is still taken: another node could not acquire it");
		}
	}

	@Override
	protected void assertLocked(String lockName) {
		Optional<Lease> probe = this.otherNode.tryAcquire(probe(lockName, Duration.ZERO));
		probe.ifPresent(Lease::release);
		if (probe.isPresent()) {
			throw new AssertionError("Lock '" + lockName + "' is free: another node acquired it");
		}
	}

	private static LockRequest probe(String lockName, Duration wait) {
		return LockRequest.builder(lockName).waitTime(wait).lease(Duration.ofSeconds(10)).build();
	}

}
