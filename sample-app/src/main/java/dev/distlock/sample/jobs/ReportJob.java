package dev.distlock.sample.jobs;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.LockFailureAction;
import dev.distlock.core.LockContext;
import dev.distlock.sample.InstanceName;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A report that every instance schedules but only one builds at a time: the lock is tried
 * once ({@code waitTime =
 * "0"}) and an instance that finds it taken skips the run ({@code onFailure = SKIP})
 * instead of waiting or failing. Each run is recorded with the instance that ran it. SKIP
 * alone keeps runs from overlapping but does not make them once per period: an instance
 * whose schedule fires after another's run has finished would run again. So the lock is
 * also held at least {@code sample.report-job.hold-at-least} (25 s of the 30 s period)
 * after it was taken, even though a run takes 2 s: an instance whose scheduler fires a
 * little later (clock skew, a GC pause, a slow start) still finds it taken and skips.
 */
@Component
public class ReportJob {

	static final String NAME = "daily-report";

	private static final Logger logger = LoggerFactory.getLogger(ReportJob.class);

	private final JdbcClient jdbc;

	private final InstanceName instance;

	private final Duration duration;

	ReportJob(JdbcClient jdbc, InstanceName instance, @Value("${sample.report-job.duration:2s}") Duration duration) {
		this.jdbc = jdbc;
		this.instance = instance;
		this.duration = duration;
	}

	/**
	 * Builds the report if no other instance is building it.
	 * @return the run, or {@code null} when another instance held the lock and this one
	 * skipped
	 */
	@Scheduled(initialDelayString = "${sample.report-job.initial-delay:10s}",
			fixedDelayString = "${sample.report-job.interval:30s}")
	@DistributedLock(name = NAME, waitTime = "0", onFailure = LockFailureAction.SKIP,
			holdAtLeast = "${sample.report-job.hold-at-least:25s}")
	public @Nullable JobRun run() throws InterruptedException {
		Instant started = Instant.now();
		long token = LockContext.currentLease().fencingToken();
		Thread.sleep(this.duration.toMillis()); // the work of building the report
		Instant finished = Instant.now();
		this.jdbc.sql("INSERT INTO job_run (job, instance, lock_token, started_at, finished_at) VALUES (?, ?, ?, ?, ?)")
			.params(NAME, this.instance.toString(), token, Timestamp.from(started), Timestamp.from(finished))
			.update();
		logger.info("{} built by {} under token {}", NAME, this.instance, token);
		return new JobRun(NAME, this.instance.toString(), token, started, finished);
	}

	/**
	 * The most recent runs, newest first.
	 * @param limit how many
	 * @return the runs
	 */
	public List<JobRun> recentRuns(int limit) {
		return this.jdbc
			.sql("SELECT job, instance, lock_token, started_at, finished_at FROM job_run WHERE job = ? "
					+ "ORDER BY started_at DESC")
			.param(NAME)
			.query((rs, row) -> new JobRun(rs.getString(1), rs.getString(2), rs.getLong(3),
					rs.getTimestamp(4).toInstant(), rs.getTimestamp(5).toInstant()))
			.stream()
			.limit(limit)
			.toList();
	}

	/**
	 * One run of the job.
	 *
	 * @param job the job's name
	 * @param instance the instance that ran it
	 * @param lockToken the fencing token of the lock it ran under
	 * @param started when it started
	 * @param finished when it finished
	 */
	public record JobRun(String job, String instance, long lockToken, Instant started, Instant finished) {
	}

}
