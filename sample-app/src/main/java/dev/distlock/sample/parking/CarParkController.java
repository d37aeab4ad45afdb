package dev.distlock.sample.parking;

import java.time.Duration;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /car-park/visits?plate=AB-123&stayMillis=1000} parks a car (or turns it
 * away); {@code GET /car-park} gives the occupancy statistics.
 */
@RestController
@RequestMapping("/car-park")
class CarParkController {

	private final CarPark carPark;

	CarParkController(CarPark carPark) {
		this.carPark = carPark;
	}

	@PostMapping("/visits")
	CarPark.Visit park(@RequestParam String plate, @RequestParam(defaultValue = "1000") long stayMillis)
			throws InterruptedException {
		return this.carPark.park(plate, Duration.ofMillis(stayMillis));
	}

	@GetMapping
	CarPark.Occupancy occupancy() {
		return this.carPark.occupancy();
	}

}
