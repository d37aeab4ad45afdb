package dev.distlock.sample.prices;

import java.time.Duration;
import java.util.List;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockType;
import dev.distlock.sample.SampleProperties;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * The price catalogue. A repricing writes every price separately (as it would to a price
 * service or a search index, outside any one transaction), so a reader in the middle of
 * it would see some old and some new prices. Readers therefore take the catalogue's READ
 * lock, which any number of them share, and a repricing takes its WRITE lock, which waits
 * for the readers and keeps new ones out until it is done.
 */
@Service
public class PriceCatalogue {

	private static final String LOCK = "price-catalogue";

	private final JdbcClient jdbc;

	private final Duration pausePerPrice;

	PriceCatalogue(JdbcClient jdbc, SampleProperties properties) {
		this.jdbc = jdbc;
		this.pausePerPrice = properties.prices().pausePerPrice();
	}

	// tag::catalogue[]
	/**
	 * Every price, as one consistent catalogue.
	 * @return the catalogue
	 */
	@DistributedLock(name = LOCK, type = LockType.READ, waitTime = "10s")
	public Catalogue prices() {
		return new Catalogue(readPrices(), LockContext.currentLease().fencingToken());
	}

	/**
	 * Raises (or with a negative percentage lowers) every price.
	 * @param percent the change in percent
	 * @return the catalogue afterwards
	 */
	@DistributedLock(name = LOCK, type = LockType.WRITE, waitTime = "10s")
	public Catalogue reprice(int percent) throws InterruptedException {
		for (Price price : readPrices()) {
			long cents = Math.max(1, Math.round(price.cents() * (100 + percent) / 100.0));
			this.jdbc.sql("UPDATE price SET cents = ? WHERE sku = ?").params(cents, price.sku()).update();
			Thread.sleep(this.pausePerPrice.toMillis());
		}
		return new Catalogue(readPrices(), LockContext.currentLease().fencingToken());
	}
	// end::catalogue[]

	private List<Price> readPrices() {
		return this.jdbc.sql("SELECT sku, cents FROM price ORDER BY sku")
			.query((rs, row) -> new Price(rs.getString(1), rs.getLong(2)))
			.list();
	}

	/**
	 * One price.
	 *
	 * @param sku the stock keeping unit
	 * @param cents the price in cents
	 */
	public record Price(String sku, long cents) {
	}

	/**
	 * The catalogue as read under one lock.
	 *
	 * @param prices every price
	 * @param lockToken the fencing token of the READ or WRITE lock it was read under
	 */
	public record Catalogue(List<Price> prices, long lockToken) {
	}

}
