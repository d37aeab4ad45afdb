package dev.distlock.sample.prices;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /prices} (READ lock), {@code POST /prices/reprice?percent=10} (WRITE lock).
 */
@RestController
@RequestMapping("/prices")
class PriceController {

	private final PriceCatalogue catalogue;

	PriceController(PriceCatalogue catalogue) {
		this.catalogue = catalogue;
	}

	@GetMapping
	PriceCatalogue.Catalogue prices() {
		return this.catalogue.prices();
	}

	@PostMapping("/reprice")
	PriceCatalogue.Catalogue reprice(@RequestParam int percent) throws InterruptedException {
		return this.catalogue.reprice(percent);
	}

}
