package dev.distlock.sample.demo;

import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /demo?threads=8&ops=2000} (optionally {@code &instances=2}, default one per
 * thread) runs the contention demo in this instance and answers its result as JSON.
 */
@RestController
class DemoController {

	private final ContentionDemo demo;

	DemoController(ContentionDemo demo) {
		this.demo = demo;
	}

	@GetMapping("/demo")
	ContentionDemo.DemoResult demo(@RequestParam(defaultValue = "8") int threads,
			@RequestParam(required = false) @Nullable Integer instances, @RequestParam(defaultValue = "2000") int ops)
			throws InterruptedException {
		return this.demo.run(threads, (instances != null) ? instances : threads, ops);
	}

}
