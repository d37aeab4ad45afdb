package dev.distlock.sample.parking;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockType;
import dev.distlock.sample.InstanceName;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * A car park with three spaces shared by every instance: a SEMAPHORE with three permits,
 * one per parked car. A car that finds no space within {@code sample.car-park.wait-time}
 * is turned away by the fallback method rather than failing. Every visit is recorded, so
 * the most cars ever parked at once can be checked against the capacity.
 */
@Service
public class CarPark {

	/** Spaces, and the semaphore's permits. */
	public static final int CAPACITY = 3;

	private final JdbcClient jdbc;

	private final InstanceName instance;

	CarPark(JdbcClient jdbc, InstanceName instance) {
		this.jdbc = jdbc;
		this.instance = instance;
	}

	// tag::park[]
	/**
	 * Parks a car for a while, waiting for a free space.
	 * @param plate the car's number plate
	 * @param stay how long it stays
	 * @return the visit
	 */
	@DistributedLock(name = "car-park", type = LockType.SEMAPHORE, permits = CAPACITY,
			waitTime = "${sample.car-park.wait-time}", fallbackMethod = "turnAway")
	public Visit park(String plate, Duration stay) throws InterruptedException {
		Instant arrived = Instant.now();
		long token = LockContext.currentLease().fencingToken();
		Thread.sleep(stay.toMillis());
		Instant left = Instant.now();
		this.jdbc
			.sql("INSERT INTO car_park_visit (plate, instance, lock_token, arrived_at, left_at) "
					+ "VALUES (?, ?, ?, ?, ?)")
			.params(plate, this.instance.toString(), token, Timestamp.from(arrived), Timestamp.from(left))
			.update();
		return new Visit(plate, true, this.instance.toString(), token, arrived, left);
	}

	// called instead of park(..) when no space freed up in time; runs without the lock
	Visit turnAway(String plate, Duration stay) {
		return new Visit(plate, false, this.instance.toString(), 0, null, null);
	}
	// end::park[]

	/**
	 * How many visits there were and the most cars that were ever parked at the same
	 * time.
	 * @return the statistics
	 */
	public Occupancy occupancy() {
		List<Instant[]> visits = this.jdbc.sql("SELECT arrived_at, left_at FROM car_park_visit")
			.query((rs, row) -> new Instant[] { rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant() })
			.list();
		// sweep over arrivals (+1) and departures (-1); at equal times a departure counts
		// first
		List<long[]> events = new ArrayList<>();
		for (Instant[] visit : visits) {
			events.add(new long[] { visit[0].toEpochMilli(), 1 });
			events.add(new long[] { visit[1].toEpochMilli(), -1 });
		}
		events.sort(Comparator.<long[]>comparingLong((event) -> event[0]).thenComparingLong((event) -> event[1]));
		int parked = 0;
		int most = 0;
		for (long[] event : events) {
			parked += (int) event[1];
			most = Math.max(most, parked);
		}
		return new Occupancy(CAPACITY, visits.size(), most);
	}

	/**
	 * One car's visit.
	 *
	 * @param plate the number plate
	 * @param parked whether it found a space
	 * @param instance the instance that served it
	 * @param lockToken the fencing token of its permit (0 when turned away)
	 * @param arrived when it took its space
	 * @param left when it left
	 */
	public record Visit(String plate, boolean parked, String instance, long lockToken, @Nullable Instant arrived,
			@Nullable Instant left) {
	}

	/**
	 * Visits so far.
	 *
	 * @param capacity spaces
	 * @param visits cars that parked
	 * @param mostAtOnce the most cars parked at the same time, never above the capacity
	 */
	public record Occupancy(int capacity, int visits, int mostAtOnce) {
	}

}
