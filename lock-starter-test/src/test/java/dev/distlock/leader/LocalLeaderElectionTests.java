package dev.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.core.LockContext;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.HeldLock;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.RenewalOutcome;
import dev.distlock.fencing.JdbcFencing;
import dev.distlock.fencing.StaleFencingTokenException;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.ForwardingLockProvider;
import dev.distlock.test.LockHistory;
import dev.distlock.test.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.context.ApplicationEvent;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election on the local backend, whose state lives in one JVM, so both "instances"
 * are here: two candidates with their own templates over providers sharing one state. A
 * crash or a pause is simulated deterministically in process: the first leader's backend
 * calls (renewals, release) hang, as they would for a frozen or partitioned process, and
 * its leader job is held on a latch. Its own lease clock still runs, so the test can
 * check the stronger promise: it is revoked before the other candidate leads.
 */
@Timeout(60)
class LocalLeaderElectionTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	private final String group = "local-" + UUID.randomUUID().toString().substring(0, 8);

	private final String table = "leader_fenced_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private final JdbcTemplate jdbc = new JdbcTemplate(postgresDataSource());

	private final LocalLockProvider shared = new LocalLockProvider();

	private final FreezingProvider frozenFirst = new FreezingProvider(this.shared);

	private final LockTemplate firstLocks = LeaderTestBackends.template(this.frozenFirst);

	private final LockTemplate secondLocks = LeaderTestBackends.template(new LocalLockProvider(this.shared));

	private final BlockingQueue<ApplicationEvent> firstEvents = new LinkedBlockingQueue<>();

	private final BlockingQueue<ApplicationEvent> secondEvents = new LinkedBlockingQueue<>();

	private final LeaderCandidate first = new LeaderCandidate(this.firstLocks, this.group, LEASE, null, "first",
			(event) -> this.firstEvents.add((ApplicationEvent) event));

	private final LeaderCandidate second = new LeaderCandidate(this.secondLocks, this.group, LEASE, null, "second",
			(event) -> this.secondEvents.add((ApplicationEvent) event));

	private final LockHistory history = new LockHistory();

	@BeforeEach
	void createFencedTable() {
		this.jdbc.execute(
				"CREATE TABLE " + this.table + " (id INT PRIMARY KEY, leader VARCHAR(40), " + "fencing_token BIGINT)");
		this.jdbc.update("INSERT INTO " + this.table + " (id, leader) VALUES (1, 'nobody')");
	}

	@AfterEach
	void cleanUp() {
		this.frozenFirst.thaw();
		this.first.stop();
		this.second.stop();
		this.firstLocks.close();
		this.secondLocks.close();
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
	}

	@Test
	void leaderThatCannotRenewIsRevokedBeforeTheOtherLeadsWithinLeasePlusOneSecond() throws Exception {
		this.first.start();
		LeaderTerm firstTerm = await(this.firstEvents, LeadershipGrantedEvent.class).getTerm();
		this.second.start();
		Thread.sleep(LEASE.toMillis() * 2);
		assertThat(this.second.isLeader()).as("second candidate while the first renews").isFalse();
		Instant frozenAt = Instant.now();
		this.frozenFirst.freeze();
		LeadershipRevokedEvent revoked = await(this.firstEvents, LeadershipRevokedEvent.class);
		LeaderTerm secondTerm = await(this.secondEvents, LeadershipGrantedEvent.class).getTerm();
		assertThat(Duration.between(frozenAt, secondTerm.grantedAt())).as("time to the next leader")
			.isLessThanOrEqualTo(LEASE.plusSeconds(1));
		assertThat(validUntil(firstTerm)).as("end of the first leader's term")
			.isBeforeOrEqualTo(secondTerm.grantedAt());
		assertThat(revoked.getReason()).contains("lost");
		assertThat(this.first.isLeader()).isFalse();
		record(firstTerm, validUntil(firstTerm), "first");
		record(secondTerm, Instant.now(), "second");
		this.history.assertConsistent();
	}

	@Test
	void pausedLeaderJobFindsItsTermRevokedAndItsFencedWriteRefused() throws Exception {
		JdbcFencing fencing = new JdbcFencing(this.jdbc);
		CountDownLatch resume = new CountDownLatch(1);
		AtomicReference<Object> jobOutcome = new AtomicReference<>();
		this.first.start();
		LeaderTerm firstTerm = await(this.firstEvents, LeadershipGrantedEvent.class).getTerm();
		Thread job = new Thread(() -> {
			LockContext.push(firstTerm.lease());
			try {
				resume.await();
				jobOutcome.set(firstTerm.isValid());
				fencing.update(this.table).set("leader", "first").where("id", 1).execute();
				jobOutcome.set("written");
			}
			catch (StaleFencingTokenException ex) {
				jobOutcome.set(ex);
			}
			catch (InterruptedException ex) {
				jobOutcome.set(ex);
			}
			finally {
				LockContext.pop(firstTerm.lease());
			}
		});
		job.start();
		this.second.start();
		this.frozenFirst.freeze();
		await(this.firstEvents, LeadershipRevokedEvent.class);
		LeaderTerm secondTerm = await(this.secondEvents, LeadershipGrantedEvent.class).getTerm();
		assertThat(fencing.update(this.table).set("leader", "second").where("id", 1).execute(secondTerm.lease()))
			.isEqualTo(1);
		this.frozenFirst.thaw();
		resume.countDown();
		job.join(10_000);
		assertThat(jobOutcome.get()).as("the paused job's fenced write").isInstanceOf(StaleFencingTokenException.class);
		assertThat(firstTerm.isValid()).as("the paused leader's term").isFalse();
		assertThat(this.jdbc.queryForObject("SELECT leader FROM " + this.table + " WHERE id = 1", String.class))
			.isEqualTo("second");
		assertThat(validUntil(firstTerm)).as("end of the first leader's term")
			.isBeforeOrEqualTo(secondTerm.grantedAt());
		record(firstTerm, validUntil(firstTerm), "first");
		record(secondTerm, Instant.now(), "second");
		this.history.assertConsistent();
	}

	@Test
	void yieldHandsLeadershipToTheOtherCandidateAndRejoins() throws Exception {
		this.first.start();
		LeaderTerm firstTerm = await(this.firstEvents, LeadershipGrantedEvent.class).getTerm();
		this.second.start();
		assertThat(this.first.yieldLeadership()).isTrue();
		assertThat(await(this.firstEvents, LeadershipRevokedEvent.class).getReason()).isEqualTo("yielded");
		LeaderTerm secondTerm = await(this.secondEvents, LeadershipGrantedEvent.class).getTerm();
		assertThat(secondTerm.fencingToken()).isGreaterThan(firstTerm.fencingToken());
		assertThat(this.first.isLeader()).isFalse();
		assertThat(this.second.yieldLeadership()).isTrue();
		LeaderTerm again = await(this.firstEvents, LeadershipGrantedEvent.class).getTerm();
		assertThat(again.fencingToken()).isGreaterThan(secondTerm.fencingToken());
		assertThat(this.second.yieldLeadership()).as("yield when not leading").isFalse();
	}

	/**
	 * When the term stopped being valid: its revocation, or earlier, when its lease ran
	 * out by its own clock.
	 */
	private static Instant validUntil(LeaderTerm term) {
		Instant revokedAt = java.util.Objects.requireNonNull(term.revokedAt(), "term not revoked");
		return revokedAt.isBefore(term.expiresAt()) ? revokedAt : term.expiresAt();
	}

	private void record(LeaderTerm term, Instant end, String holder) {
		long start = LeaderTestBackends.micros(term.grantedAt());
		this.history.record(new LockHistory.Hold("leader:" + this.group, LockType.MUTEX, 1, term.fencingToken(), holder,
				start, start, LeaderTestBackends.micros(end)));
	}

	private static <E extends ApplicationEvent> E await(BlockingQueue<ApplicationEvent> events, Class<E> type)
			throws InterruptedException {
		while (true) {
			ApplicationEvent event = events.poll(10, TimeUnit.SECONDS);
			if (event == null) {
				throw new AssertionError("No " + type.getSimpleName() + " within 10 s");
			}
			if (type.isInstance(event)) {
				return type.cast(event);
			}
		}
	}

	private static DriverManagerDataSource postgresDataSource() {
		TestServers.JdbcServer server = TestServers.postgres();
		return new DriverManagerDataSource(server.url(), server.username(), server.password());
	}

	/**
	 * A provider whose renewals and releases hang while frozen, as a frozen process's
	 * would.
	 */
	private static final class FreezingProvider extends ForwardingLockProvider {

		private volatile CountDownLatch thawed = new CountDownLatch(0);

		FreezingProvider(LockProvider<?> delegate) {
			super(delegate);
		}

		void freeze() {
			this.thawed = new CountDownLatch(1);
		}

		void thaw() {
			this.thawed.countDown();
		}

		@Override
		public RenewalOutcome[] renewAll(List<HeldLock> locks, Duration lease) {
			try {
				this.thawed.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return super.renewAll(locks, lease);
		}

		@Override
		public boolean renew(HeldLock lock, Duration lease) throws Exception {
			this.thawed.await();
			return super.renew(lock, lease);
		}

		@Override
		public void release(HeldLock lock) throws Exception {
			this.thawed.await();
			super.release(lock);
		}

	}

}
