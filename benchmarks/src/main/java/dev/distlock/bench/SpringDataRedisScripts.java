package dev.distlock.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * {@code diag-sdr-scripts} (diagnostic, not a peer): the ceiling's two scripts run
 * through Spring Data Redis's {@link StringRedisTemplate} instead of raw Lettuce, on the
 * same kind of connection factory distlock's Redis backend uses. The gap to
 * {@code ceiling-lettuce} is what the template path costs; the gap from here to distlock
 * is the rest of distlock. {@code diag-sdr-scripts-exposed} sets
 * {@code exposeConnection}, which skips the per-call connection proxy.
 */
final class SpringDataRedisScripts implements Subject {

	private static final RedisScript<Long> ACQUIRE = RedisScript.of(LettuceCeiling.ACQUIRE, Long.class);

	private static final RedisScript<Long> RELEASE = RedisScript.of(LettuceCeiling.RELEASE, Long.class);

	private final LettuceConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	private final BenchConfig config;

	private final String lease = String.valueOf(BenchConfig.LEASE.toMillis());

	private final AtomicLong owners = new AtomicLong();

	private final Map<String, ReentrantLock> local = new ConcurrentHashMap<>();

	SpringDataRedisScripts(BenchConfig config, boolean exposeConnection) {
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(config.redisHost(), config.redisPort()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.redis = new StringRedisTemplate(this.connectionFactory);
		// false (the default) wraps every call's connection in a close-suppressing JDK
		// proxy
		this.redis.setExposeConnection(exposeConnection);
		this.config = config;
	}

	@Override
	public Hold lock(String key) {
		ReentrantLock gate = this.local.computeIfAbsent(key, (k) -> new ReentrantLock(true));
		gate.lock();
		List<String> keys = List.of("{" + key + "}", "{" + key + "}:fence");
		String owner = Thread.currentThread().getId() + ":" + this.owners.incrementAndGet();
		try {
			while (true) {
				Long token = this.redis.execute(ACQUIRE, keys, owner, this.lease);
				if (token != null && token > 0) {
					break;
				}
				Thread.onSpinWait();
			}
		}
		catch (RuntimeException ex) {
			gate.unlock();
			throw ex;
		}
		return () -> {
			try {
				this.redis.execute(RELEASE, List.of(keys.get(0)), owner);
			}
			finally {
				gate.unlock();
			}
		};
	}

	@Override
	public boolean reentrant() {
		return false;
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
		RedisKeys.deleteMatching(this.config, "*" + this.config.runId() + "*");
	}

}
