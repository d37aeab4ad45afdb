package dev.distlock.sample.accounts;

/**
 * A write refused because the account already accepted one with a newer fencing token:
 * this caller's lease had run out and another holder wrote in the meantime. Answered with
 * 409 Conflict.
 */
public class StaleLockTokenException extends RuntimeException {

	StaleLockTokenException(String accountId, long token, long lastToken) {
		super("Write to account " + accountId + " with lock token " + token + " refused: it was already written with "
				+ "token " + lastToken + " (this caller's lease ran out and another holder took over)");
	}

}
