package dev.distlock.sample.page;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * A demo name that names no {@link Demo}. Answered with 404 Not Found.
 */
@ResponseStatus(HttpStatus.NOT_FOUND)
public class UnknownDemoException extends RuntimeException {

	UnknownDemoException(String name, String known) {
		super("No demo named '" + name + "'; the demos are " + known);
	}

}
