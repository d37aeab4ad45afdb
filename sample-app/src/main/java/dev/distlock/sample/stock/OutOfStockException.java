package dev.distlock.sample.stock;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * Thrown when a reservation asks for more units than are in stock; answered with 409
 * Conflict.
 */
@ResponseStatus(HttpStatus.CONFLICT)
public class OutOfStockException extends RuntimeException {

	OutOfStockException(String sku, int wanted, int available) {
		super("Only " + available + " of " + sku + " in stock, " + wanted + " wanted");
	}

}
