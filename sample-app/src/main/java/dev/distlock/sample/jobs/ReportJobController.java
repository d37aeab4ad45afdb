package dev.distlock.sample.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.sample.InstanceName;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /jobs/report/run} builds the daily report now, as the scheduler would (it
 * answers whether this instance built it or skipped it); {@code GET /jobs/report/runs}
 * lists the latest runs of every instance.
 */
@RestController
@RequestMapping("/jobs/report")
class ReportJobController {

	private final ReportJob job;

	private final InstanceName instance;

	ReportJobController(ReportJob job, InstanceName instance) {
		this.job = job;
		this.instance = instance;
	}

	@PostMapping("/run")
	Map<String, Object> run() throws InterruptedException {
		ReportJob.JobRun run = this.job.build(ReportJob.DAILY);
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("instance", this.instance.toString());
		result.put("ran", run != null);
		if (run != null) {
			result.put("run", run);
		}
		return result;
	}

	@GetMapping("/runs")
	List<ReportJob.JobRun> runs(@RequestParam(defaultValue = "20") int limit) {
		return this.job.recentRuns(ReportJob.DAILY, limit);
	}

}
