package dev.distlock.observability;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.core.Lease;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Reports acquisitions and holds as Micrometer observations:
 * {@value #ACQUIRE_OBSERVATION} (from request to grant or give-up, in scope on the
 * acquiring thread, so that the backend client's spans nest under it) and
 * {@value #HOLD_OBSERVATION} (from grant to the release of the outermost hold, not in
 * scope, since a lease may be released on another thread). With Spring Boot's meter
 * observation handler they are also the timers {@code distlock.acquire} and
 * {@code distlock.hold}. Low-cardinality keys: {@code provider}, {@code type},
 * {@code name}, {@code outcome}; high-cardinality: {@code distlock.key},
 * {@code distlock.fencing-token}. See docs/observability.md.
 *
 * @since 0.1.0
 */
public final class ObservationLockListener implements LockListener {

	/**
	 * Name of the observation around an acquisition, and of the timer derived from it.
	 */
	public static final String ACQUIRE_OBSERVATION = "distlock.acquire";

	/** Name of the observation around a hold, and of the timer derived from it. */
	public static final String HOLD_OBSERVATION = "distlock.hold";

	static final String PROVIDER = "provider";

	static final String TYPE = "type";

	static final String NAME = "name";

	static final String OUTCOME = "outcome";

	static final String KEY = "distlock.key";

	static final String TOKEN = "distlock.fencing-token";

	private final ObservationRegistry registry;

	private final ThreadLocal<Pending> pending = new ThreadLocal<>();

	private final Map<Lease, Hold> holds = new ConcurrentHashMap<>();

	/**
	 * Creates a listener that reports to the given registry.
	 * @param registry the observation registry
	 */
	public ObservationLockListener(ObservationRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void acquiring(LockRequest request, String provider) {
		Pending leftover = this.pending.get();
		if (leftover != null) {
			// an acquisition that ended without acquired/acquireFailed (an Error): end it
			// rather than leak its scope
			this.pending.remove();
			leftover.observation.lowCardinalityKeyValue(OUTCOME, "failed");
			leftover.end();
		}
		if (this.registry.isNoop()) {
			return;
		}
		Observation observation = start(ACQUIRE_OBSERVATION, provider, request.type(), request.name())
			.highCardinalityKeyValue(KEY, request.key());
		this.pending.set(new Pending(observation, observation.openScope()));
	}

	@Override
	public void acquired(Lease lease, String provider, long waitNanos) {
		Pending acquire = this.pending.get();
		if (acquire != null) {
			this.pending.remove();
			acquire.observation.lowCardinalityKeyValue(OUTCOME, "acquired")
				.highCardinalityKeyValue(TOKEN, Long.toString(lease.fencingToken()));
			acquire.end();
		}
		if (this.registry.isNoop()) {
			return;
		}
		// started after the acquire scope closed, so its parent is the caller's
		// observation, not the acquisition
		Observation hold = start(HOLD_OBSERVATION, provider, lease.type(), lease.name())
			.highCardinalityKeyValue(KEY, lease.key())
			.highCardinalityKeyValue(TOKEN, Long.toString(lease.fencingToken()));
		this.holds.put(lease, new Hold(hold));
	}

	@Override
	public void acquireFailed(LockRequest request, String provider, long waitNanos, @Nullable Throwable error) {
		Pending acquire = this.pending.get();
		if (acquire == null) {
			return;
		}
		this.pending.remove();
		acquire.observation.lowCardinalityKeyValue(OUTCOME, (error != null) ? "failed" : "timeout");
		if (error != null) {
			acquire.observation.error(error);
		}
		acquire.end();
	}

	@Override
	public void lost(Lease lease, String provider, String reason) {
		Hold hold = this.holds.get(lease);
		if (hold != null) {
			hold.lost = true;
			hold.observation.event(Observation.Event.of("distlock.lost", "lease lost: " + reason));
		}
	}

	@Override
	public void released(Lease lease, String provider, long heldNanos) {
		Hold hold = this.holds.remove(lease);
		if (hold != null) {
			hold.observation.lowCardinalityKeyValue(OUTCOME, hold.lost ? "lost" : "released");
			hold.observation.stop();
		}
	}

	private Observation start(String name, String provider, LockType type, @Nullable String lockName) {
		return Observation.createNotStarted(name, this.registry)
			.lowCardinalityKeyValue(PROVIDER, provider)
			.lowCardinalityKeyValue(TYPE, type.name().toLowerCase(Locale.ROOT))
			.lowCardinalityKeyValue(NAME, (lockName != null) ? lockName : MetricsLockListener.NO_NAME)
			.start();
	}

	/** An acquisition in progress on this thread, with its scope open. */
	private record Pending(Observation observation, Observation.Scope scope) {

		void end() {
			this.scope.close();
			this.observation.stop();
		}

	}

	/** A hold in progress, on any thread. */
	private static final class Hold {

		private final Observation observation;

		private volatile boolean lost;

		Hold(Observation observation) {
			this.observation = observation;
		}

	}

}
