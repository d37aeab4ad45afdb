package dev.distlock.fencing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.RedisLockProvider;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A holder in a process of its own: takes the lock with a 1 s lease, says
 * {@code ACQUIRED <token>}, waits for {@code WRITE} on stdin (the test freezes it with
 * SIGSTOP meanwhile), then writes through both fenced helpers inside the locked callback
 * and says what each did ({@code JDBC WRITTEN} / {@code JDBC STALE <recorded>}, the same
 * for {@code REDIS}).
 * <p>
 * Arguments: redis-uri postgres-url postgres-user postgres-password table redis-key
 * lock-key.
 */
public final class FencedWriterProcess {

	private FencedWriterProcess() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory redis = FencingTestSupport.redis(URI.create(args[0]));
		JdbcFencing jdbc = new JdbcFencing(new JdbcTemplate(FencingTestSupport.single(args[1], args[2], args[3])));
		RedisFencing redisFencing = new RedisFencing(new StringRedisTemplate(redis), (store, name, ex) -> {
		});
		String table = args[4];
		String redisKey = args[5];
		BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		try (LockTemplate locks = new LockTemplate(new RedisLockProvider(redis))) {
			locks.execute(LockRequest.builder(args[6]).lease(Duration.ofSeconds(1)).waitTime(Duration.ZERO).build(),
					() -> {
						System.out.println("ACQUIRED " + LockContext.currentLease().fencingToken());
						stdin.readLine();
						try {
							jdbc.update(table).set("owner", "paused holder").where("id", 1).execute();
							System.out.println("JDBC WRITTEN");
						}
						catch (StaleFencingTokenException ex) {
							System.out.println("JDBC STALE " + ex.getRecordedToken());
						}
						try {
							redisFencing.set(redisKey, "paused holder");
							System.out.println("REDIS WRITTEN");
						}
						catch (StaleFencingTokenException ex) {
							System.out.println("REDIS STALE " + ex.getRecordedToken());
						}
						return null;
					});
		}
		catch (RuntimeException ex) {
			System.out.println("ENDED " + ex.getClass().getSimpleName());
		}
		System.out.println("DONE");
		System.out.flush();
		System.exit(0);
	}

}
