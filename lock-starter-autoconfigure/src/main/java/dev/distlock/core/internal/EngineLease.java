package dev.distlock.core.internal;

import java.util.function.Consumer;

import dev.distlock.core.Lease;
import dev.distlock.core.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * What the engine asks of every lease it hands out (one key, a re-entrant hold of one,
 * several keys together), so that it never has to tell them apart.
 */
interface EngineLease extends Lease {

	/**
	 * The loss to report when the guarded work ends: a loss already known, or a lease
	 * whose clock ran out.
	 * @return the exception, or {@code null} if the lease is still valid
	 */
	@Nullable LockLostException lossAtEnd();

	/**
	 * Runs the action for the outermost lease of every key this one stands for.
	 * @param action what to run
	 */
	void forEachHeld(Consumer<Lease> action);

	/**
	 * Whether this is the outermost hold of its locks (not a re-entrant one inside
	 * another).
	 * @return {@code true} for the outermost hold
	 */
	boolean isOuterHold();

}
