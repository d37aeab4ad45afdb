package dev.distlock.fencing;

import dev.distlock.observability.MetricsLockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;

/**
 * Counts refused fenced writes as the Micrometer counter {@value #REJECTED}, tagged with
 * {@code store} ({@code jdbc} or {@code redis}) and {@code name} (the lease's logical
 * name, {@value MetricsLockListener#NO_NAME} when it has none), never with the key or
 * row, whose values are unbounded. A rising count means holders outlive their leases:
 * look for long pauses or a lease shorter than the work.
 *
 * @since 0.1.0
 */
public final class MetricsFencingListener implements FencingListener {

	/** Counter: fenced writes refused for a stale token. Tags: store, name. */
	public static final String REJECTED = "distlock.fencing.rejected";

	private final Meter.MeterProvider<Counter> counters;

	/**
	 * Creates a listener that registers its counters as they are first needed.
	 * @param registry the meter registry
	 */
	public MetricsFencingListener(MeterRegistry registry) {
		this.counters = Counter.builder(REJECTED)
			.description("Fenced writes refused because the resource had recorded a greater fencing token")
			.withRegistry(registry);
	}

	@Override
	public void rejected(String store, @Nullable String name, StaleFencingTokenException exception) {
		this.counters.withTags(Tags.of("store", store, "name", (name != null) ? name : MetricsLockListener.NO_NAME))
			.increment();
	}

}
