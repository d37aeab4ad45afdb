package dev.distlock.sample.stock;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockContext;
import dev.distlock.sample.InstanceName;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reserves stock. Reading the quantity and writing it back is a read-modify-write that
 * two instances must not interleave for one SKU, so it runs under a MUTEX keyed by the
 * SKU: reservations of different SKUs run in parallel, those of one SKU one at a time
 * across every instance. The lock wraps the transaction (distlock's advisor runs just
 * outside {@code @Transactional}), so the next holder reads committed data.
 */
@Service
public class StockService {

	private final JdbcClient jdbc;

	private final InstanceName instance;

	StockService(JdbcClient jdbc, InstanceName instance) {
		this.jdbc = jdbc;
		this.instance = instance;
	}

	// tag::reserve[]
	/**
	 * Takes {@code quantity} units of the SKU out of stock.
	 * @param sku the stock keeping unit
	 * @param quantity how many units, at least 1
	 * @return the reservation
	 * @throws OutOfStockException if fewer units are left
	 */
	@DistributedLock(name = "stock", key = "#sku", waitTime = "10s")
	@Transactional
	public Reservation reserve(String sku, int quantity) {
		if (quantity < 1) {
			throw new IllegalArgumentException("quantity must be at least 1, was " + quantity);
		}
		int available = quantity(sku).orElseThrow(() -> new OutOfStockException(sku, quantity, 0));
		if (available < quantity) {
			throw new OutOfStockException(sku, quantity, available);
		}
		// deliberately not "quantity = quantity - ?": the lock, not the database, keeps
		// this read-modify-write safe
		int remaining = available - quantity;
		this.jdbc.sql("UPDATE stock SET quantity = ? WHERE sku = ?").params(remaining, sku).update();
		long token = LockContext.currentLease().fencingToken();
		this.jdbc
			.sql("INSERT INTO stock_reservation (sku, quantity, instance, lock_token, reserved_at) "
					+ "VALUES (?, ?, ?, ?, ?)")
			.params(sku, quantity, this.instance.toString(), token, Timestamp.from(Instant.now()))
			.update();
		return new Reservation(sku, quantity, remaining, this.instance.toString(), token);
	}
	// end::reserve[]

	/**
	 * Adds units to the SKU's stock, creating the SKU when it is new.
	 * @param sku the stock keeping unit
	 * @param quantity how many units, at least 1
	 * @return the quantity now in stock
	 */
	@DistributedLock(name = "stock", key = "#sku", waitTime = "10s")
	@Transactional
	public int restock(String sku, int quantity) {
		if (quantity < 1) {
			throw new IllegalArgumentException("quantity must be at least 1, was " + quantity);
		}
		Optional<Integer> current = quantity(sku);
		int total = current.orElse(0) + quantity;
		if (current.isPresent()) {
			this.jdbc.sql("UPDATE stock SET quantity = ? WHERE sku = ?").params(total, sku).update();
		}
		else {
			// safe without an upsert: nobody else holds this SKU's lock
			this.jdbc.sql("INSERT INTO stock (sku, quantity) VALUES (?, ?)").params(sku, total).update();
		}
		return total;
	}

	/**
	 * The units in stock; no lock, since one row is read consistently by the database
	 * anyway.
	 * @param sku the stock keeping unit
	 * @return the quantity, empty for an unknown SKU
	 */
	public Optional<Integer> quantity(String sku) {
		return this.jdbc.sql("SELECT quantity FROM stock WHERE sku = ?").param(sku).query(Integer.class).optional();
	}

	/**
	 * A reservation made.
	 *
	 * @param sku the stock keeping unit
	 * @param quantity units reserved
	 * @param remaining units left afterwards
	 * @param instance the instance that made it
	 * @param lockToken the fencing token of the lock it was made under
	 */
	public record Reservation(String sku, int quantity, int remaining, String instance, long lockToken) {
	}

}
