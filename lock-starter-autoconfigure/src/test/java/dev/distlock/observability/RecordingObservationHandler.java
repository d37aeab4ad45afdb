package dev.distlock.observability;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationView;
import org.jspecify.annotations.Nullable;

/**
 * Records every observation a registry reports (start, stop, events, error, parent), as a
 * tracer would see them.
 */
final class RecordingObservationHandler implements ObservationHandler<Observation.Context> {

	final List<Recorded> recorded = new CopyOnWriteArrayList<>();

	@Override
	public void onStart(Observation.Context context) {
		this.recorded.add(new Recorded(context, System.nanoTime()));
	}

	@Override
	public void onEvent(Observation.Event event, Observation.Context context) {
		find(context).events.add(event);
	}

	@Override
	public void onStop(Observation.Context context) {
		find(context).stopNanos = System.nanoTime();
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return true;
	}

	List<Recorded> named(String name) {
		return this.recorded.stream().filter((r) -> r.context.getName().equals(name)).toList();
	}

	private Recorded find(Observation.Context context) {
		return this.recorded.stream()
			.filter((r) -> r.context == context)
			.findFirst()
			.orElseThrow(() -> new AssertionError("event on an observation that never started: " + context));
	}

	/** One observation as recorded. */
	static final class Recorded {

		final Observation.Context context;

		final long startNanos;

		volatile long stopNanos;

		final List<Observation.Event> events = new CopyOnWriteArrayList<>();

		Recorded(Observation.Context context, long startNanos) {
			this.context = context;
			this.startNanos = startNanos;
		}

		boolean isStopped() {
			return this.stopNanos != 0;
		}

		long durationMillis() {
			return (this.stopNanos - this.startNanos) / 1_000_000;
		}

		@Nullable String low(String key) {
			KeyValue value = this.context.getLowCardinalityKeyValue(key);
			return (value != null) ? value.getValue() : null;
		}

		@Nullable String high(String key) {
			KeyValue value = this.context.getHighCardinalityKeyValue(key);
			return (value != null) ? value.getValue() : null;
		}

		Observation.@Nullable Context parent() {
			ObservationView parent = this.context.getParentObservation();
			return (parent != null) ? (Observation.Context) parent.getContextView() : null;
		}

		@Override
		public String toString() {
			return this.context.toString();
		}

	}

}
