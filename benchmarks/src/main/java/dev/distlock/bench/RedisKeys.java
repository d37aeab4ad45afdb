package dev.distlock.bench;

import java.util.List;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Removes what a benchmark run left in Redis (fence counters, expired-but-not-yet-evicted
 * keys), so repeated runs do not grow the shared server.
 */
final class RedisKeys {

	private RedisKeys() {
	}

	static void deleteMatching(RedisCommands<String, String> redis, String pattern) {
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
			List<String> keys = page.getKeys();
			if (!keys.isEmpty()) {
				redis.unlink(keys.toArray(String[]::new));
			}
			cursor = page;
		}
		while (!cursor.isFinished());
	}

	static void deleteMatching(BenchConfig config, String pattern) {
		RedisClient client = RedisClient.create(config.redisUri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			deleteMatching(connection.sync(), pattern);
		}
		finally {
			client.shutdown();
		}
	}

}
