package dev.distlock.sample.stock;

import java.util.Map;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /stock/{sku}}, {@code POST /stock/{sku}/reservations?quantity=1},
 * {@code POST /stock/{sku}/restock?quantity=10}.
 */
@RestController
@RequestMapping("/stock/{sku}")
class StockController {

	private final StockService stock;

	StockController(StockService stock) {
		this.stock = stock;
	}

	@GetMapping
	ResponseEntity<Map<String, Object>> quantity(@PathVariable String sku) {
		return this.stock.quantity(sku)
			.map((quantity) -> ResponseEntity.ok(Map.<String, Object>of("sku", sku, "quantity", quantity)))
			.orElseGet(() -> ResponseEntity.notFound().build());
	}

	@PostMapping("/reservations")
	StockService.Reservation reserve(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
		return this.stock.reserve(sku, quantity);
	}

	@PostMapping("/restock")
	Map<String, Object> restock(@PathVariable String sku, @RequestParam int quantity) {
		return Map.of("sku", sku, "quantity", this.stock.restock(sku, quantity));
	}

}
