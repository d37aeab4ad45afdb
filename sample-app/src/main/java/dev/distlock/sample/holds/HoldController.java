package dev.distlock.sample.holds;

import java.time.Duration;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /holds?key=k&millis=100} holds a lock and answers who held it, when, and
 * with which token.
 */
@RestController
class HoldController {

	private final HoldService holds;

	HoldController(HoldService holds) {
		this.holds = holds;
	}

	@PostMapping("/holds")
	HoldService.Hold hold(@RequestParam String key, @RequestParam(defaultValue = "100") long millis,
			@RequestParam(defaultValue = "30000") long waitMillis) throws InterruptedException {
		return this.holds.hold(key, Duration.ofMillis(millis), Duration.ofMillis(waitMillis));
	}

}
