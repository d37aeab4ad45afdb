package dev.distlock.fencing;

import dev.distlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * A fenced write was refused because the resource has already recorded a greater fencing
 * token: a newer holder of the lock has written since this writer's lease was granted, so
 * this writer's lease has ended (it ran out, or was lost, perhaps while its process was
 * paused) and its work must not be applied. Nothing was written. Retrying with the same
 * token always fails again; acquire the lock anew instead.
 *
 * @since 0.1.0
 */
public class StaleFencingTokenException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	private final String resource;

	private final long token;

	private final @Nullable Long recordedToken;

	/**
	 * Creates an exception.
	 * @param resource what was written, for the message (a table and its row, a Redis
	 * key)
	 * @param token the writer's fencing token
	 * @param recordedToken the greater token the resource holds, or {@code null} if it
	 * could not be read
	 */
	public StaleFencingTokenException(String resource, long token, @Nullable Long recordedToken) {
		super("Stale fencing token " + token + " refused by " + resource
				+ ((recordedToken != null) ? ": it has recorded token " + recordedToken
						: ": it has recorded a greater token")
				+ ". The lease that carried this token has ended and a newer holder has written since; the write was"
				+ " not applied");
		this.resource = resource;
		this.token = token;
		this.recordedToken = recordedToken;
	}

	/**
	 * What was written: a table and its row, or a Redis key.
	 * @return the resource description
	 */
	public String getResource() {
		return this.resource;
	}

	/**
	 * The refused writer's fencing token.
	 * @return the token
	 */
	public long getToken() {
		return this.token;
	}

	/**
	 * The greater token the resource has recorded.
	 * @return the recorded token, or {@code null} if it could not be read
	 */
	public @Nullable Long getRecordedToken() {
		return this.recordedToken;
	}

}
