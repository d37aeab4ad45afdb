package dev.distlock.sample.jobs;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.LockFailureAction;
import dev.distlock.core.LockContext;
import dev.distlock.sample.InstanceName;
import dev.distlock.sample.SampleProperties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * A report that every instance schedules ({@link ReportSchedule}) but only one builds per
 * period: the lock is tried once ({@code waitTime = "0"}) and an instance that finds it
 * taken skips the run ({@code onFailure = SKIP}) instead of waiting or failing. SKIP
 * alone keeps runs from overlapping but does not make them once per period: an instance
 * whose schedule fires after another's run has finished would run again. So the lock is
 * also held at least {@code sample.report-job.hold-at-least} (25 s of the 30 s period)
 * after it was taken, even though a run takes 2 s: an instance whose scheduler fires a
 * little later (clock skew, a GC pause, a slow start) still finds it taken and skips.
 * Each report has a lock of its own ({@code report:<name>}), and each run is recorded
 * with the instance that built it.
 */
@Component
public class ReportJob {

	/** The report the schedule builds. */
	public static final String DAILY = "daily";

	private static final Logger logger = LoggerFactory.getLogger(ReportJob.class);

	private final JdbcClient jdbc;

	private final InstanceName instance;

	private final Duration duration;

	ReportJob(JdbcClient jdbc, InstanceName instance, SampleProperties properties) {
		this.jdbc = jdbc;
		this.instance = instance;
		this.duration = properties.reportJob().duration();
	}

	// tag::report-job[]
	/**
	 * Builds the report unless another caller holds its lock (building it now, or built
	 * it less than {@code hold-at-least} ago).
	 * @param report which report
	 * @return the run, or {@code null} when the lock was taken and this call skipped
	 */
	@DistributedLock(name = "report", key = "#report", waitTime = "0", onFailure = LockFailureAction.SKIP,
			holdAtLeast = "${sample.report-job.hold-at-least}")
	public @Nullable JobRun build(String report) throws InterruptedException {
		Instant started = Instant.now();
		long token = LockContext.currentLease().fencingToken();
		Thread.sleep(this.duration.toMillis()); // the work of building the report
		Instant finished = Instant.now();
		this.jdbc.sql("INSERT INTO job_run (job, instance, lock_token, started_at, finished_at) VALUES (?, ?, ?, ?, ?)")
			.params(report, this.instance.toString(), token, Timestamp.from(started), Timestamp.from(finished))
			.update();
		logger.info("Report {} built by {} under token {}", report, this.instance, token);
		return new JobRun(report, this.instance.toString(), token, started, finished);
	}
	// end::report-job[]

	/**
	 * The most recent runs of a report, newest first.
	 * @param report which report
	 * @param limit how many
	 * @return the runs
	 */
	public List<JobRun> recentRuns(String report, int limit) {
		return this.jdbc
			.sql("SELECT job, instance, lock_token, started_at, finished_at FROM job_run WHERE job = ? "
					+ "ORDER BY started_at DESC")
			.param(report)
			.query((rs, row) -> new JobRun(rs.getString(1), rs.getString(2), rs.getLong(3),
					rs.getTimestamp(4).toInstant(), rs.getTimestamp(5).toInstant()))
			.stream()
			.limit(limit)
			.toList();
	}

	/**
	 * One run of the job.
	 *
	 * @param report the report built
	 * @param instance the instance that built it
	 * @param lockToken the fencing token of the lock it ran under
	 * @param started when it started
	 * @param finished when it finished
	 */
	public record JobRun(String report, String instance, long lockToken, Instant started, Instant finished) {
	}

}
