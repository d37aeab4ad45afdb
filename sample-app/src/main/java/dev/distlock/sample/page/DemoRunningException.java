package dev.distlock.sample.page;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * A demo started while its previous run on this instance has not finished. Answered with
 * 409 Conflict.
 */
@ResponseStatus(HttpStatus.CONFLICT)
public class DemoRunningException extends RuntimeException {

	DemoRunningException(DemoRun running) {
		super("Demo " + running.demo().path() + " is still running (run " + running.id() + ")");
	}

}
