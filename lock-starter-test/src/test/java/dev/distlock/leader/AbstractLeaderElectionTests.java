package dev.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.fencing.JdbcFencing;
import dev.distlock.test.ChildJvm;
import dev.distlock.test.LockHistory;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.context.ApplicationEvent;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election across processes on one backend: the first leader runs in a child JVM,
 * a second candidate in this JVM. Killing the leader (SIGKILL) hands leadership over
 * within the lease + 1 s; freezing it (SIGSTOP of the child's own pid) past its lease
 * hands leadership over too, and when the frozen leader is thawed it is told it was
 * revoked and the fenced write of its leader job (PostgreSQL row, token of its term) is
 * refused while the new leader's stands. Each run's terms are checked as a recorded
 * history: no two terms valid (granted, not revoked, lease valid by its own clock) at
 * once, and a later term has a greater token.
 */
@Tag("fault")
@Timeout(90)
public abstract class AbstractLeaderElectionTests {

	/** The leader lease of these tests. */
	protected static final Duration LEASE = Duration.ofSeconds(2);

	private final String group = "leader-test-" + UUID.randomUUID().toString().substring(0, 8);

	private final String table = "leader_fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private final JdbcTemplate jdbc = new JdbcTemplate(postgresDataSource());

	private final LockHistory history = new LockHistory();

	private final BlockingQueue<ApplicationEvent> events = new LinkedBlockingQueue<>();

	private LeaderTestBackends.Backend backend;

	private LockTemplate locks;

	private LeaderCandidate candidate;

	/** The backend's name for {@link LeaderTestBackends#backend}. */
	protected abstract String backendName();

	/** How the child JVM and this one connect to the backend. */
	protected abstract String connectString() throws Exception;

	@BeforeEach
	void createFencedTable() {
		this.jdbc.execute(
				"CREATE TABLE " + this.table + " (id INT PRIMARY KEY, leader VARCHAR(40), " + "fencing_token BIGINT)");
		this.jdbc.update("INSERT INTO " + this.table + " (id, leader) VALUES (1, 'nobody')");
	}

	@AfterEach
	void cleanUp() throws Exception {
		try {
			if (this.candidate != null) {
				this.candidate.stop();
			}
			if (this.locks != null) {
				this.locks.close();
			}
			if (this.backend != null) {
				this.backend.close();
			}
		}
		finally {
			this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		}
	}

	@Test
	void leaderKilledHandsOverWithinLeasePlusOneSecond() throws Exception {
		connectLocally();
		try (ChildJvm first = startChild()) {
			Term old = granted(first);
			startLocalCandidate();
			Thread.sleep(LEASE.toMillis());
			assertThat(this.candidate.isLeader()).as("second candidate while the first leads").isFalse();
			Instant killedAt = Instant.now();
			first.kill();
			LeadershipGrantedEvent next = awaitEvent(LeadershipGrantedEvent.class, LEASE.plusSeconds(5));
			assertThat(Duration.between(killedAt, next.getTerm().grantedAt())).as("time to the next leader")
				.isLessThanOrEqualTo(LEASE.plusSeconds(1));
			long lastExpiry = lastRenewal(first, old);
			// the killed leader's lease stayed valid by its own clock until its last
			// expiry
			record(old.token, old.granted, lastExpiry, "child");
			recordLocal(next.getTerm());
		}
		this.history.assertConsistent();
	}

	@Test
	void leaderPausedPastItsLeaseIsRevokedOnResumeAndItsFencedWriteIsRefused() throws Exception {
		connectLocally();
		try (ChildJvm first = startChild()) {
			Term old = granted(first);
			assertThat(Long.parseLong(first.awaitLine("JOB", Duration.ofSeconds(10)))).isEqualTo(old.token);
			startLocalCandidate();
			Thread.sleep(300);
			Instant pausedAt = Instant.now();
			first.pause();
			LeadershipGrantedEvent next = awaitEvent(LeadershipGrantedEvent.class, LEASE.plusSeconds(5));
			assertThat(Duration.between(pausedAt, next.getTerm().grantedAt())).as("time to the next leader")
				.isLessThanOrEqualTo(LEASE.plusSeconds(1));
			LeaderTerm term = next.getTerm();
			assertThat(term.fencingToken()).as("the new term's token").isGreaterThan(old.token);
			assertThat(new JdbcFencing(this.jdbc).update(this.table)
				.set("leader", "second")
				.where("id", 1)
				.execute(term.lease())).as("rows the new leader wrote").isEqualTo(1);

			first.resume();
			String revoked = first.awaitLine("REVOKED", Duration.ofSeconds(5));
			assertThat(revoked).as("the thawed leader's revocation").startsWith(old.token + " ");
			long revokedAt = Long.parseLong(revoked.split(" ")[1]);
			first.send("WRITE");
			assertThat(first.awaitLine("WRITE", Duration.ofSeconds(10))).as("the thawed leader's fenced write")
				.isEqualTo("STALE " + term.fencingToken());
			long lastExpiry = lastRenewal(first, old);
			record(old.token, old.granted, Math.min(lastExpiry, revokedAt), "child");
			recordLocal(term);
		}
		assertThat(this.jdbc.queryForObject("SELECT leader FROM " + this.table + " WHERE id = 1", String.class))
			.as("the row after both leaders wrote")
			.isEqualTo("second");
		this.history.assertConsistent();
	}

	private ChildJvm startChild() throws Exception {
		TestServers.JdbcServer postgres = TestServers.postgres();
		return ChildJvm.start(backendName() + "-leader", LeaderProcess.class, backendName(), connectString(),
				this.group, Long.toString(LEASE.toMillis()), postgres.url(), postgres.username(), this.table);
	}

	/**
	 * Connects this JVM's candidate to the backend and warms it up with one lock of
	 * another key, before the child starts: a first acquisition on a cold JVM can take
	 * longer than the lease, and a lease counts from the request.
	 */
	private void connectLocally() throws Exception {
		this.backend = LeaderTestBackends.backend(backendName(), connectString(), LEASE);
		this.locks = LeaderTestBackends.template(this.backend.provider());
		this.locks.run(this.group + ":warm-up", () -> {
		});
	}

	private void startLocalCandidate() {
		this.candidate = new LeaderCandidate(this.locks, this.group, LEASE, null, "parent",
				(event) -> this.events.add((ApplicationEvent) event));
		this.candidate.start();
	}

	private record Term(long token, long granted, long expires) {
	}

	private static Term granted(ChildJvm child) throws InterruptedException {
		String[] parts = child.awaitLine("GRANTED", Duration.ofSeconds(40)).split(" ");
		return new Term(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
	}

	/**
	 * The last expiry the child's lease clock reported in its first term (up to its first
	 * revocation).
	 */
	private static long lastRenewal(ChildJvm child, Term term) {
		long last = term.expires;
		for (String line : child.linesSeen()) {
			if (line.startsWith("REVOKED ")) {
				break;
			}
			if (line.startsWith("RENEWED ")) {
				last = Math.max(last, Long.parseLong(line.substring("RENEWED ".length())));
			}
		}
		return last;
	}

	private <E extends ApplicationEvent> E awaitEvent(Class<E> type, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			ApplicationEvent event = this.events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			if (event == null) {
				throw new AssertionError("No " + type.getSimpleName() + " within " + timeout + " on " + backendName());
			}
			if (type.isInstance(event)) {
				return type.cast(event);
			}
		}
	}

	private void record(long token, long start, long end, String holder) {
		this.history
			.record(new LockHistory.Hold("leader:" + this.group, LockType.MUTEX, 1, token, holder, start, start, end));
	}

	/**
	 * Records this JVM's term, which must still be valid: it was not revoked while the
	 * test ran.
	 */
	private void recordLocal(LeaderTerm term) {
		assertThat(term.isValid()).as("this JVM's term at the end (revoked: %s)", term.revocationReason()).isTrue();
		record(term.fencingToken(), LeaderTestBackends.micros(term.grantedAt()),
				LeaderTestBackends.micros(Instant.now()), "parent");
	}

	private static DriverManagerDataSource postgresDataSource() {
		TestServers.JdbcServer server = TestServers.postgres();
		return new DriverManagerDataSource(server.url(), server.username(), server.password());
	}

}
