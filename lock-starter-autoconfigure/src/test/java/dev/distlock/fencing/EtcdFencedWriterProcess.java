package dev.distlock.fencing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.etcd.EtcdLockProvider;
import io.etcd.jetcd.Client;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A holder in a process of its own, on etcd: takes the lock with a 1 s lease, says
 * {@code ACQUIRED <token>}, waits for {@code WRITE} on stdin (the test freezes it with
 * SIGSTOP meanwhile), then writes through the fenced JDBC helper inside the locked
 * callback and says what it did ({@code JDBC WRITTEN} / {@code JDBC STALE <recorded>}).
 * <p>
 * Arguments: etcd-endpoints postgres-url postgres-user postgres-password table lock-key.
 */
public final class EtcdFencedWriterProcess {

	private EtcdFencedWriterProcess() {
	}

	public static void main(String[] args) throws Exception {
		JdbcFencing jdbc = new JdbcFencing(new JdbcTemplate(FencingTestSupport.single(args[1], args[2], args[3])));
		String table = args[4];
		BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		try (Client client = Client.builder().endpoints(args[0].split(",")).build();
				LockTemplate locks = new LockTemplate(EtcdLockProvider.builder(client).build())) {
			locks.execute(LockRequest.builder(args[5]).lease(Duration.ofSeconds(1)).waitTime(Duration.ZERO).build(),
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
