package dev.distlock.observability;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;

/**
 * The Micrometer meters that no observation gives, for every backend alike:
 * {@value #ACTIVE} (leases held now), {@value #LOST} and {@value #RENEWALS}. The timers
 * {@code distlock.acquire} and {@code distlock.hold} are derived by Micrometer from
 * {@link ObservationLockListener}'s observations. Every meter is tagged with
 * {@code provider}, {@code type} and {@code name} (the request's
 * {@link LockRequest#name() logical name}, {@value #NO_NAME} when it has none), never
 * with the key. See docs/observability.md.
 *
 * @since 0.1.0
 */
public final class MetricsLockListener implements LockListener {

	/**
	 * Gauge: leases this instance holds now, lost ones included until released. Tags:
	 * provider, type, name.
	 */
	public static final String ACTIVE = "distlock.leases.active";

	/** Counter: leases lost while held. Tags: provider, type, name. */
	public static final String LOST = "distlock.leases.lost";

	/**
	 * Counter: lease renewals by the watchdog and explicit extensions. Tags: provider,
	 * type, name.
	 */
	public static final String RENEWALS = "distlock.renewals";

	/** Tag value of {@code name} for requests without a logical name. */
	public static final String NO_NAME = "none";

	private final MeterRegistry registry;

	private final Meter.MeterProvider<Counter> lostCounters;

	private final Meter.MeterProvider<Counter> renewalCounters;

	private final Map<Tags, AtomicInteger> active = new ConcurrentHashMap<>();

	/**
	 * Creates a listener that registers its meters in the given registry as they are
	 * first needed.
	 * @param registry the meter registry
	 */
	public MetricsLockListener(MeterRegistry registry) {
		this.registry = registry;
		this.lostCounters = Counter.builder(LOST)
			.description("Distributed lock leases lost while held")
			.withRegistry(registry);
		this.renewalCounters = Counter.builder(RENEWALS)
			.description("Distributed lock lease renewals and extensions")
			.withRegistry(registry);
	}

	@Override
	public void acquired(Lease lease, String provider, long waitNanos) {
		active(tags(provider, lease.type(), lease.name())).incrementAndGet();
	}

	@Override
	public void released(Lease lease, String provider, long heldNanos) {
		active(tags(provider, lease.type(), lease.name())).decrementAndGet();
	}

	@Override
	public void renewed(Lease lease, String provider) {
		this.renewalCounters.withTags(tags(provider, lease.type(), lease.name())).increment();
	}

	@Override
	public void lost(Lease lease, String provider, String reason) {
		this.lostCounters.withTags(tags(provider, lease.type(), lease.name())).increment();
	}

	private AtomicInteger active(Tags tags) {
		return this.active.computeIfAbsent(tags, (key) -> {
			AtomicInteger count = new AtomicInteger();
			Gauge.builder(ACTIVE, count, AtomicInteger::get)
				.description("Distributed lock leases held by this instance")
				.tags(key)
				.strongReference(true)
				.register(this.registry);
			return count;
		});
	}

	static Tags tags(String provider, LockType type, @Nullable String name) {
		return Tags.of("provider", provider, "type", type.name().toLowerCase(Locale.ROOT), "name",
				(name != null) ? name : NO_NAME);
	}

}
