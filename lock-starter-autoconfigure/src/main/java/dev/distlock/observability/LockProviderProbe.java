package dev.distlock.observability;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockAttempt;
import dev.distlock.core.spi.LockProvider;

/**
 * Runs {@link LockProvider#checkHealth(LockAttempt)} with a probe on a key reserved for
 * health checks (under the configured key prefix, so backend ACLs on the prefix apply), a
 * short lease so a probe whose release failed frees itself soon, and an owner token of
 * its own.
 */
final class LockProviderProbe {

	/** The probe's key, after {@code distlock.key-prefix}. */
	static final String KEY = "distlock-health";

	private static final Duration LEASE = Duration.ofSeconds(10);

	private final String keyPrefix;

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	LockProviderProbe(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Makes one health round trip.
	 * @param provider the backend
	 * @throws Exception if the backend did not answer
	 */
	void check(LockProvider provider) throws Exception {
		Set<LockType> types = provider.supportedTypes();
		LockType type = types.contains(LockType.MUTEX) ? LockType.MUTEX : types.iterator().next();
		LockAttempt probe = new LockAttempt(this.keyPrefix + KEY, type, 1, LEASE,
				this.instanceId + ":" + this.sequence.incrementAndGet());
		provider.checkHealth(probe);
	}

}
