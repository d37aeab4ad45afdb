package dev.distlock.sample.jobs;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The schedule every instance runs: the daily report every
 * {@code sample.report-job.interval}. Each instance's scheduler fires; the lock decides
 * which one builds.
 */
@Component
class ReportSchedule {

	private final ReportJob job;

	ReportSchedule(ReportJob job) {
		this.job = job;
	}

	// tag::schedule[]
	@Scheduled(initialDelayString = "${sample.report-job.initial-delay}",
			fixedDelayString = "${sample.report-job.interval}")
	void buildDailyReport() throws InterruptedException {
		this.job.build(ReportJob.DAILY); // through the proxy: the lock decides
	}
	// end::schedule[]

}
