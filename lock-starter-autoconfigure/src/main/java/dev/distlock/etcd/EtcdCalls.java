package dev.distlock.etcd;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for jetcd's asynchronous calls until a deadline. jetcd retries a call by its own
 * policy with no overall limit a caller controls, so every call of this backend is
 * awaited with {@code get(timeout)} up to a deadline on the {@link System#nanoTime()}
 * scale and fails with a {@link TimeoutException} there, its outcome unknown.
 */
final class EtcdCalls {

	private EtcdCalls() {
	}

	/**
	 * The reply of a call, or a failure once the deadline passed.
	 * @param call the call in flight
	 * @param until the deadline
	 * @param what the call, for the timeout's message
	 * @return the reply
	 * @throws TimeoutException if there was no reply by the deadline (the call goes on in
	 * the background)
	 * @throws Exception the call's own failure
	 */
	static <T> T await(CompletableFuture<T> call, long until, String what) throws Exception {
		return await(call, until, what, "");
	}

	/**
	 * The reply of a call, or a failure once the deadline passed; the call's description
	 * is the two parts joined, built only if it fails, so a call that succeeds builds no
	 * message.
	 * @param call the call in flight
	 * @param until the deadline
	 * @param what the call, for the timeout's message
	 * @param subject what the call is about (a key, a queue), appended to {@code what}
	 * @return the reply
	 * @throws TimeoutException if there was no reply by the deadline (the call goes on in
	 * the background)
	 * @throws Exception the call's own failure
	 */
	static <T> T await(CompletableFuture<T> call, long until, String what, Object subject) throws Exception {
		try {
			return call.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new TimeoutException("No reply from etcd to " + what + subject + " in time");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof Exception failure) {
				throw failure;
			}
			throw ex;
		}
		catch (CancellationException ex) {
			throw new TimeoutException("The etcd call " + what + subject + " was cancelled");
		}
	}

}
