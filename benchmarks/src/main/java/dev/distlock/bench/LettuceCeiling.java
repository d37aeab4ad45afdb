package dev.distlock.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * {@code ceiling-lettuce}: the least any Redis lock with fencing and release notification
 * can do, written straight on Lettuce: one {@code EVALSHA} that sets the key if absent
 * and increments its fence counter, one {@code EVALSHA} that deletes it if still ours and
 * publishes the release. Two round trips, nothing else: no re-entry, no lease
 * bookkeeping, no listeners. Threads of this JVM that want one key queue on a fair local
 * lock first (so contention never costs extra round trips), which is the most any one
 * client can get out of one key. All threads share one connection, as Spring Data Redis
 * shares its native Lettuce connection.
 */
final class LettuceCeiling implements Subject {

	// KEYS[1] the lock, KEYS[2] its fence counter (one hash tag, one slot); ARGV[1]
	// owner, ARGV[2] lease in ms
	static final String ACQUIRE = """
			if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
				return redis.call('incr', KEYS[2])
			end
			return 0
			""";

	// KEYS[1] the lock; ARGV[1] owner
	static final String RELEASE = """
			if redis.call('get', KEYS[1]) == ARGV[1] then
				redis.call('del', KEYS[1])
				redis.call('publish', KEYS[1], 'released')
				return 1
			end
			return 0
			""";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	private final String acquireSha;

	private final String releaseSha;

	private final String runId;

	private final String lease = String.valueOf(BenchConfig.LEASE.toMillis());

	private final AtomicLong owners = new AtomicLong();

	private final Map<String, ReentrantLock> local = new ConcurrentHashMap<>();

	LettuceCeiling(BenchConfig config) {
		this.client = RedisClient.create(config.redisUri());
		this.connection = this.client.connect();
		this.redis = this.connection.sync();
		this.acquireSha = this.redis.scriptLoad(ACQUIRE);
		this.releaseSha = this.redis.scriptLoad(RELEASE);
		this.runId = config.runId();
	}

	@Override
	public Hold lock(String key) throws Exception {
		ReentrantLock gate = this.local.computeIfAbsent(key, (k) -> new ReentrantLock(true));
		gate.lock();
		String[] keys = { "{" + key + "}", "{" + key + "}:fence" };
		String owner = Thread.currentThread().getId() + ":" + this.owners.incrementAndGet();
		try {
			while (true) {
				Long token = this.redis.evalsha(this.acquireSha, ScriptOutputType.INTEGER, keys, owner, this.lease);
				if (token != null && token > 0) {
					break;
				}
				// only another process could hold it; none does in these benchmarks
				Thread.onSpinWait();
			}
		}
		catch (RuntimeException ex) {
			gate.unlock();
			throw ex;
		}
		return () -> {
			try {
				this.redis.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { keys[0] }, owner);
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
		RedisKeys.deleteMatching(this.redis, "*" + this.runId + "*");
		this.connection.close();
		this.client.shutdown();
	}

}
