package dev.distlock.annotation;

import java.time.Duration;
import java.util.function.Supplier;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link DistributedLock @DistributedLock} method under its lock. Per call: evaluate the key, acquire through
 * {@link LockTemplate} (re-entry, local queueing and leases are the template's), run the method with the lease current
 * in {@link dev.distlock.core.LockContext}, and release when the method returns or throws, or, for an asynchronous
 * result, when the result completes. A lease lost while the method ran raises {@link LockLostException} after it
 * returned (added as suppressed to the method's own exception if it threw). When the lock stays busy for the whole
 * wait, the fallback method or {@link LockFailureAction#SKIP} answers, else {@link LockAcquisitionException}.
 * Methods returning Reactor {@code Mono} or {@code Flux} lock on subscription instead (see {@link DistributedLock}).
 *
 * @since 0.1.0
 */
public class DistributedLockInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

	private final LockOperationSource operations;

	private final Supplier<LockTemplate> lockTemplate;

	/**
	 * Creates an interceptor.
	 * @param operations the compiled annotations
	 * @param lockTemplate the template to lock with, looked up on first use
	 */
	public DistributedLockInterceptor(LockOperationSource operations, Supplier<LockTemplate> lockTemplate) {
		this.operations = operations;
		this.lockTemplate = SingletonSupplier.of(lockTemplate);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (target == null) {
			return invocation.proceed();
		}
		LockOperation operation = this.operations.getOperation(invocation.getMethod(), target.getClass());
		if (operation == null) {
			return invocation.proceed();
		}
		@Nullable Object[] args = invocation.getArguments();
		if (operation.reactive() != null) {
			return ReactiveLocking.lock(operation, invocation, target, args, this.lockTemplate);
		}
		LockRequest request = operation.request(operation.key(target, args));
		LockTemplate template = this.lockTemplate.get();
		Lease lease = template.tryAcquire(request).orElse(null);
		if (lease == null) {
			return busy(operation, request, template, target, args);
		}
		Object result;
		try {
			result = template.runHolding(lease, () -> proceed(invocation));
		}
		catch (Throwable ex) {
			Throwable failure = unwrap(ex);
			LockLostException lost = lostOrNull(template, lease);
			if (lost != null && lost != failure) {
				failure.addSuppressed(lost);
			}
			lease.release();
			throw failure;
		}
		AsyncResultHandler async = operation.async();
		if (async != null && result != null) {
			// the calling thread is done with the lock; a second call from it must wait, not re-enter
			template.detach(lease);
			return async.whenComplete(result, (failure) -> complete(template, lease, failure));
		}
		try {
			template.checkNotLost(lease);
		}
		finally {
			lease.release();
		}
		return result;
	}

	static @Nullable Object proceed(MethodInvocation invocation) throws Exception {
		try {
			return invocation.proceed();
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Exception ex) {
			// carried through LockTemplate.runHolding unchanged and unwrapped above, so callers see their own type
			throw new CheckedFailure(ex);
		}
		catch (Throwable ex) {
			throw new CheckedFailure(ex);
		}
	}

	static @Nullable Throwable complete(LockTemplate template, Lease lease, @Nullable Throwable failure) {
		LockLostException lost = lostOrNull(template, lease);
		lease.release();
		if (failure != null) {
			if (lost != null) {
				failure.addSuppressed(lost);
			}
			return failure;
		}
		return lost;
	}

	static @Nullable LockLostException lostOrNull(LockTemplate template, Lease lease) {
		try {
			template.checkNotLost(lease);
			return null;
		}
		catch (LockLostException ex) {
			return ex;
		}
	}

	private @Nullable Object busy(LockOperation operation, LockRequest request, LockTemplate template, Object target,
			@Nullable Object[] args) throws Throwable {
		if (operation.answersBusy()) {
			if (logger.isDebugEnabled()) {
				logger.debug("Lock '" + request.key() + "' is busy; " + ((operation.fallback() != null)
						? "calling fallback " + operation.fallback().getName() : "skipping") + " "
						+ operation.description());
			}
			return operation.whenBusy(target, args);
		}
		throw busyException(operation, request, template);
	}

	static LockAcquisitionException busyException(LockOperation operation, LockRequest request,
			LockTemplate template) {
		Duration wait = (request.waitTime() != null) ? request.waitTime() : template.settings().defaultWait();
		return new LockAcquisitionException("Could not acquire " + request.type() + " lock '" + request.key()
				+ "' for " + operation.description() + " within " + wait + " on "
				+ template.provider(request).name());
	}

	static Throwable unwrap(Throwable failure) {
		return (failure instanceof CheckedFailure checked) ? checked.getCause() : failure;
	}

	/** A checked exception of the method, carried through {@link LockTemplate#runHolding}. */
	private static final class CheckedFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		CheckedFailure(Throwable cause) {
			super(null, cause, false, false);
		}

	}

}
