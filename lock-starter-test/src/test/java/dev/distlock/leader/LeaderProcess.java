package dev.distlock.leader;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockTemplate;
import dev.distlock.fencing.JdbcFencing;
import dev.distlock.fencing.StaleFencingTokenException;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A leader candidate in a process of its own. Prints
 * {@code GRANTED <token> <granted µs> <expires µs>} when it leads,
 * {@code RENEWED <expires µs>} at each renewal and {@code REVOKED <token> <µs> <reason>}
 * when it stops leading (times are epoch microseconds). On its first term it starts a
 * leader job that holds the term's lease in {@link LockContext}, as a {@code @LeaderOnly}
 * method does, says {@code JOB <token>}, waits for {@code WRITE} on stdin, then writes
 * row 1 of the fenced table and says {@code WRITE OK} or {@code WRITE STALE <recorded>}.
 * <p>
 * Arguments: backend connect group lease-ms postgres-url postgres-user fenced-table.
 */
public final class LeaderProcess {

	private LeaderProcess() {
	}

	public static void main(String[] args) throws Exception {
		Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
		LeaderTestBackends.Backend backend = LeaderTestBackends.backend(args[0], args[1], lease);
		JdbcFencing fencing = new JdbcFencing(
				new JdbcTemplate(new SingleConnectionDataSource(args[4], args[5], "", true)));
		String table = args[6];
		LockTemplate locks = LeaderTestBackends.template(backend.provider(), LeaderTestBackends.printingRenewals());
		String id = "child-" + ProcessHandle.current().pid();
		boolean[] jobStarted = { false };
		LeaderCandidate candidate = new LeaderCandidate(locks, args[2], lease, null, id, (event) -> {
			if (event instanceof LeadershipGrantedEvent granted) {
				LeaderTerm term = granted.getTerm();
				System.out.println("GRANTED " + term.fencingToken() + " " + LeaderTestBackends.micros(term.grantedAt())
						+ " " + LeaderTestBackends.micros(term.expiresAt()));
				if (!jobStarted[0]) {
					jobStarted[0] = true;
					Thread job = new Thread(() -> job(term, fencing, table), "leader-job");
					job.setDaemon(true);
					job.start();
				}
			}
			else if (event instanceof LeadershipRevokedEvent revoked) {
				LeaderTerm term = revoked.getTerm();
				System.out.println("REVOKED " + term.fencingToken() + " "
						+ LeaderTestBackends.micros(java.util.Objects.requireNonNull(term.revokedAt())) + " "
						+ revoked.getReason());
			}
		});
		candidate.start();
		Thread.sleep(Long.MAX_VALUE);
	}

	private static void job(LeaderTerm term, JdbcFencing fencing, String table) {
		LockContext.push(term.lease());
		try {
			System.out.println("JOB " + term.fencingToken());
			new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
			fencing.update(table).set("leader", "child " + term.fencingToken()).where("id", 1).execute();
			System.out.println("WRITE OK");
		}
		catch (StaleFencingTokenException ex) {
			System.out.println("WRITE STALE " + ex.getRecordedToken());
		}
		catch (Exception ex) {
			System.out.println("WRITE FAILED " + ex);
		}
		finally {
			LockContext.pop(term.lease());
		}
	}

}
