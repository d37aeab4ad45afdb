package dev.distlock.redisson;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease a holder believes in never outlasts the one Redis keeps: the core counts it
 * from when the granting request was sent, so a grant whose reply comes late (here held
 * back by a proxy, as a slow network would) shortens the holder's lease instead of
 * lengthening it past Redis' expiry.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonLeaseClockTests {

	private static final Duration REPLY_DELAY = Duration.ofMillis(700);

	private static final Duration LEASE = Duration.ofSeconds(5);

	/** PTTL has millisecond resolution and is read a moment after the grant. */
	private static final Duration TOLERANCE = Duration.ofMillis(5);

	private final String prefix = "rlc:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final RedissonClient admin = RedissonClients.shared();

	private DelayingProxy proxy;

	private RedissonClient slowClient;

	private LockTemplate template;

	@BeforeEach
	void connectThroughProxy() throws Exception {
		this.proxy = DelayingProxy.start(TestServers.redisUri());
		this.slowClient = RedissonClients.create(this.proxy.address());
		RedissonLockProvider provider = new RedissonLockProvider(this.slowClient);
		this.template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix), List.of());
	}

	@AfterEach
	void close() throws Exception {
		this.proxy.delayReplies(Duration.ZERO);
		this.template.close();
		RedissonClients.shutdown(this.slowClient);
		this.proxy.close();
		this.admin.getKeys().deleteByPattern("*" + this.prefix + "*");
		RedissonClients.shutdown(this.admin);
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void leaseIsCountedFromTheRequestSoADelayedGrantNeverOutlastsRedis(LockType type) {
		String key = "delayed-" + type;
		this.proxy.delayReplies(REPLY_DELAY);
		Lease lease = this.template
			.acquire(LockRequest.builder(key).type(type).lease(LEASE).waitTime(Duration.ofSeconds(10)).build());
		Instant backendExpiry = backendExpiry(this.prefix + key, type);
		this.proxy.delayReplies(Duration.ZERO);
		assertThat(lease.expiresAt())
			.as("%s: the holder's expiry (%s) must not be later than Redis' (%s)", type, lease.expiresAt(),
					backendExpiry)
			.isBeforeOrEqualTo(backendExpiry.plus(TOLERANCE));
		assertThat(lease.expiresAt()).as("and not shortened by more than the replies' delays")
			.isAfter(backendExpiry.minus(REPLY_DELAY.multipliedBy(3)));
		lease.release();
	}

	/**
	 * When Redis lets go of the lock, read right after the grant from a client without
	 * delay.
	 */
	private Instant backendExpiry(String fullKey, LockType type) {
		String name = RedissonLockKeys.of(fullKey, type).lock();
		if (type == LockType.SEMAPHORE) {
			// Redisson scores a permit by its expiry in epoch ms (the client's clock);
			// this test holds the only one
			Object expiry = this.admin.getScript(ByteArrayCodec.INSTANCE)
				.eval(name, org.redisson.api.RScript.Mode.READ_ONLY,
						"return redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')[2]",
						org.redisson.api.RScript.ReturnType.VALUE,
						List.of(RedissonLockKeys.of(fullKey, type).permitTimeouts()));
			return Instant.ofEpochMilli(Long.parseLong(new String((byte[]) expiry)));
		}
		long pttl = this.admin.getKeys().remainTimeToLive(name);
		assertThat(pttl).as("PTTL of %s", name).isPositive();
		return Instant.now().plusMillis(pttl);
	}

}
