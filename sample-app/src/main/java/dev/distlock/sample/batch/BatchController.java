package dev.distlock.sample.batch;

import java.time.Duration;
import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /batches/{id}?parts=3} starts a batch; {@code POST /batches/{id}/parts}
 * reports a part done (from any instance); {@code GET /batches/{id}} gives the parts
 * left; {@code GET /batches/{id}/completion?waitMillis=5000} waits until all are done.
 */
@RestController
@RequestMapping("/batches/{id}")
class BatchController {

	private final BatchService batches;

	BatchController(BatchService batches) {
		this.batches = batches;
	}

	@PostMapping
	Map<String, Object> start(@PathVariable String id, @RequestParam int parts) {
		return Map.of("batch", id, "started", this.batches.start(id, parts), "partsLeft", this.batches.partsLeft(id));
	}

	@PostMapping("/parts")
	Map<String, Object> partDone(@PathVariable String id) {
		this.batches.partDone(id);
		return Map.of("batch", id, "partsLeft", this.batches.partsLeft(id));
	}

	@GetMapping
	Map<String, Object> partsLeft(@PathVariable String id) {
		return Map.of("batch", id, "partsLeft", this.batches.partsLeft(id));
	}

	@GetMapping("/completion")
	Map<String, Object> await(@PathVariable String id, @RequestParam(defaultValue = "5000") long waitMillis)
			throws InterruptedException {
		return Map.of("batch", id, "complete", this.batches.awaitAllParts(id, Duration.ofMillis(waitMillis)));
	}

}
