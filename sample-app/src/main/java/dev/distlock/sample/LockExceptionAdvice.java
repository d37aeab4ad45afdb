package dev.distlock.sample;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockLostException;
import dev.distlock.fencing.StaleFencingTokenException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns lock failures into HTTP answers a client can act on: a lock that stayed busy (or
 * a write refused by its fencing token) is 409 Conflict, try again; a lease lost while
 * the work ran is 409 too, since the work may have overlapped another holder's; a backend
 * that failed is 503 Service Unavailable.
 */
@RestControllerAdvice
class LockExceptionAdvice {

	@ExceptionHandler
	ProblemDetail lockNotAcquired(LockAcquisitionException ex) {
		HttpStatus status = ex.isTimeout() ? HttpStatus.CONFLICT : HttpStatus.SERVICE_UNAVAILABLE;
		return problem(status, ex.isTimeout() ? "Lock busy" : "Lock backend failed", ex);
	}

	@ExceptionHandler
	ProblemDetail leaseLost(LockLostException ex) {
		return problem(HttpStatus.CONFLICT, "Lock lost while working", ex);
	}

	@ExceptionHandler
	ProblemDetail staleToken(StaleFencingTokenException ex) {
		return problem(HttpStatus.CONFLICT, "Stale fencing token", ex);
	}

	@ExceptionHandler
	ProblemDetail badArgument(IllegalArgumentException ex) {
		return problem(HttpStatus.BAD_REQUEST, "Bad request", ex);
	}

	private static ProblemDetail problem(HttpStatus status, String title, Exception ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
		problem.setTitle(title);
		return problem;
	}

}
