package dev.distlock.sample.page;

import java.util.Arrays;
import java.util.List;

import dev.distlock.sample.InstanceName;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the page at {@code /} ({@code static/index.html}) polls and posts:
 * {@code GET /page/timeline} (this instance's lock calls and demo runs),
 * {@code GET /page/demos} (the demos), {@code POST /page/demos/{demo}} (start one; 202).
 */
@RestController
@RequestMapping("/page")
class PageController {

	private final LockTimeline timeline;

	private final DemoScenarios demos;

	private final InstanceName instance;

	PageController(LockTimeline timeline, DemoScenarios demos, InstanceName instance) {
		this.timeline = timeline;
		this.demos = demos;
		this.instance = instance;
	}

	@GetMapping("/timeline")
	Timeline timeline() {
		return new Timeline(this.instance.toString(), this.timeline.calls(), this.demos.runs());
	}

	@GetMapping("/demos")
	List<DemoDescriptor> demos() {
		return Arrays.stream(Demo.values()).map((demo) -> new DemoDescriptor(demo.path(), demo.title())).toList();
	}

	@PostMapping("/demos/{demo}")
	@ResponseStatus(HttpStatus.ACCEPTED)
	DemoRun start(@PathVariable String demo) {
		return this.demos.start(Demo.of(demo));
	}

	/**
	 * What the page draws.
	 *
	 * @param instance this instance's name
	 * @param calls its lock calls, oldest first
	 * @param runs the demos run from its page, newest first
	 */
	record Timeline(String instance, List<LockCall> calls, List<DemoRun> runs) {
	}

	/**
	 * A demo the page offers.
	 *
	 * @param path its name in {@code POST /page/demos/{demo}}
	 * @param title its button's label
	 */
	record DemoDescriptor(String path, String title) {
	}

}
