package dev.distlock.sample.page;

import org.jspecify.annotations.Nullable;

/**
 * One run of a demo started from the page. Times are epoch milliseconds, which
 * JavaScript's {@code Date} takes as they are.
 *
 * @param id the run's number in this instance
 * @param demo which demo
 * @param startedAt when it started
 * @param finishedAt when it finished, {@code null} while it runs
 * @param summary what happened, {@code null} while it runs
 * @param failed whether it ended with an unexpected error
 */
public record DemoRun(long id, Demo demo, long startedAt, @Nullable Long finishedAt, @Nullable String summary,
		boolean failed) {

	DemoRun finish(String summary, boolean failed) {
		return new DemoRun(this.id, this.demo, this.startedAt, System.currentTimeMillis(), summary, failed);
	}

	boolean running() {
		return this.finishedAt == null;
	}

}
