package dev.distlock.sample.page;

import java.util.Arrays;
import java.util.List;

import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.sample.InstanceName;

import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the page at {@code /} ({@code static/index.html}) polls and posts:
 * {@code GET /page/timeline} (this instance's lock calls, the leases it holds and its
 * demo runs), {@code GET /page/demos} (the demos, their text and their code), {@code POST
 * /page/demos/{demo}} (start one: 202, or 409 while it runs). Every time is epoch
 * milliseconds, a number JavaScript's {@code Date} takes as it is.
 */
@RestController
@RequestMapping("/page")
class PageController {

	private final LockTimeline timeline;

	private final DemoScenarios demos;

	private final DemoCode code;

	private final LockTemplate locks;

	private final InstanceName instance;

	private final Environment environment;

	PageController(LockTimeline timeline, DemoScenarios demos, DemoCode code, LockTemplate locks, InstanceName instance,
			Environment environment) {
		this.timeline = timeline;
		this.demos = demos;
		this.code = code;
		this.locks = locks;
		this.instance = instance;
		this.environment = environment;
	}

	@GetMapping("/timeline")
	Timeline timeline() {
		List<HeldLease> leases = this.locks.activeLeases().stream().map(HeldLease::of).toList();
		return new Timeline(this.instance.toString(), this.timeline.calls(), leases, this.demos.runs());
	}

	@GetMapping("/demos")
	List<DemoDescriptor> demos() {
		return Arrays.stream(Demo.values())
			.map((demo) -> new DemoDescriptor(demo.path(), demo.title(),
					this.environment.resolvePlaceholders(demo.description()), this.code.code(demo)))
			.toList();
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
	 * @param leases the leases it holds now
	 * @param runs the demos run from its page, newest first
	 */
	record Timeline(String instance, List<LockCall> calls, List<HeldLease> leases, List<DemoRun> runs) {
	}

	/**
	 * A lease this instance holds.
	 *
	 * @param key the key as requested
	 * @param type the lock type
	 * @param fencingToken its fencing token
	 * @param holderThread the thread that acquired it
	 * @param acquiredAt when it was acquired, epoch milliseconds
	 * @param expiresAt the estimated end of its backend lease, epoch milliseconds
	 * @param watchdog whether the watchdog renews it
	 * @param valid whether it is still held
	 */
	record HeldLease(String key, LockType type, long fencingToken, String holderThread, long acquiredAt, long expiresAt,
			boolean watchdog, boolean valid) {

		static HeldLease of(LeaseSnapshot lease) {
			return new HeldLease(lease.key(), lease.type(), lease.fencingToken(), lease.holderThread(),
					lease.acquiredAt().toEpochMilli(), lease.expiresAt().toEpochMilli(), lease.watchdog(),
					lease.valid());
		}

	}

	/**
	 * A demo the page offers.
	 *
	 * @param path its name in {@code POST /page/demos/{demo}}
	 * @param title its button's label
	 * @param description what it shows and reports, with this instance's settings
	 * @param code the source it runs
	 */
	record DemoDescriptor(String path, String title, String description, List<DemoCode.Code> code) {
	}

}
