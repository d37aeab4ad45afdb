package dev.distlock.core.callback;

import dev.distlock.core.LockAcquisitionException;
import org.jspecify.annotations.Nullable;

/**
 * What {@code LockTemplate.execute(LockRequest, LockCallback, BusyCallback, AsyncHold)}
 * does when the lock stays busy for the whole wait: throw (the default), skip, or call a
 * fallback.
 *
 * @param <T> the result type
 * @since 0.1.0
 */
@FunctionalInterface
public interface BusyCallback<T> {

	/**
	 * Answers a call whose lock could not be had in time.
	 * @param timeout the exception the call throws unless this callback answers otherwise
	 * @return the call's result
	 * @throws Throwable what the call throws, usually {@code timeout} itself
	 */
	@Nullable T whenBusy(LockAcquisitionException timeout) throws Throwable;

	/**
	 * The default answer: throw the {@link LockAcquisitionException}.
	 * @param <T> the result type
	 * @return the callback
	 */
	static <T> BusyCallback<T> throwing() {
		return (timeout) -> {
			throw timeout;
		};
	}

}
