package dev.distlock.core.spi;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The answer to one lease's renewal in a batch ({@link LockProvider#renewAll}): renewed,
 * no longer held by its owner, or failed with an unknown outcome. Each lease of a batch
 * stands or falls on its own answer: one shard or node that fails does not fail the
 * leases another one renewed.
 *
 * @since 0.3.0
 */
public final class RenewalOutcome {

	private static final RenewalOutcome RENEWED = new RenewalOutcome(true, null);

	private static final RenewalOutcome NOT_HELD = new RenewalOutcome(false, null);

	private final boolean renewed;

	private final @Nullable Exception failure;

	private RenewalOutcome(boolean renewed, @Nullable Exception failure) {
		this.renewed = renewed;
		this.failure = failure;
	}

	/**
	 * The lease was extended.
	 * @return the outcome
	 */
	public static RenewalOutcome renewed() {
		return RENEWED;
	}

	/**
	 * The owner no longer holds the lock: the lease is lost.
	 * @return the outcome
	 */
	public static RenewalOutcome notHeld() {
		return NOT_HELD;
	}

	/**
	 * Renewed or not held, as the boolean says.
	 * @param renewed whether the lease was extended
	 * @return the outcome
	 */
	public static RenewalOutcome of(boolean renewed) {
		return renewed ? RENEWED : NOT_HELD;
	}

	/**
	 * The renewal failed and its outcome is unknown (no answer, a node down): the core
	 * retries it until the lease ends by its clock.
	 * @param failure what went wrong
	 * @return the outcome
	 */
	public static RenewalOutcome failed(Exception failure) {
		return new RenewalOutcome(false, Objects.requireNonNull(failure, "failure"));
	}

	/**
	 * Whether the lease was extended.
	 * @return {@code true} if renewed
	 */
	public boolean isRenewed() {
		return this.renewed;
	}

	/**
	 * Why the renewal failed, if its outcome is unknown.
	 * @return the failure, or {@code null} if the backend answered
	 */
	public @Nullable Exception failure() {
		return this.failure;
	}

	@Override
	public String toString() {
		return this.renewed ? "renewed" : (this.failure != null) ? "failed: " + this.failure : "not held";
	}

}
