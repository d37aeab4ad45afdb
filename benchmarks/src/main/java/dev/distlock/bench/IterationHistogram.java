package dev.distlock.bench;

import org.HdrHistogram.Histogram;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * One benchmark thread's latency histogram of the current JMH iteration, handed to the
 * run's {@link Latency} at the end of a measurement iteration (warm-up iterations are
 * dropped).
 */
final class IterationHistogram {

	private final Histogram histogram = Latency.newHistogram();

	private boolean measuring;

	void begin(IterationParams iteration) {
		this.measuring = iteration.getType() == IterationType.MEASUREMENT;
		this.histogram.reset();
	}

	void record(long startNanos) {
		this.histogram.recordValue(System.nanoTime() - startNanos);
	}

	void end(Latency latency) {
		if (this.measuring) {
			latency.add(this.histogram);
		}
	}

}
