package dev.distlock.sample.page;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One run of a demo started from the page.
 *
 * @param id the run's number in this instance
 * @param demo which demo
 * @param startedAt when it started
 * @param finishedAt when it finished, {@code null} while it runs
 * @param summary what happened, {@code null} while it runs
 * @param failed whether it ended with an unexpected error
 */
public record DemoRun(long id, Demo demo, Instant startedAt, @Nullable Instant finishedAt, @Nullable String summary,
		boolean failed) {

	DemoRun finish(String summary, boolean failed) {
		return new DemoRun(this.id, this.demo, this.startedAt, Instant.now(), summary, failed);
	}

}
