package dev.distlock.annotation;

import java.util.function.Supplier;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.callback.BusyCallback;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link DistributedLock @DistributedLock} method under its lock. It only resolves
 * the call's key and picks the callbacks (the method; the fallback, skip or exception
 * when busy; the hold of an asynchronous result); the template's one execution path
 * ({@link LockTemplate#execute(LockRequest, dev.distlock.core.callback.LockCallback, BusyCallback, dev.distlock.core.callback.AsyncHold)})
 * acquires, runs, judges the lease and releases. A lease lost while the method ran raises
 * {@link dev.distlock.core.LockLostException} after it returned (added as suppressed to
 * the method's own exception if it threw). Methods returning Reactor {@code Mono} or
 * {@code Flux} lock on subscription instead (see {@link DistributedLock}).
 *
 * @since 0.1.0
 */
public class DistributedLockInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

	private final LockAttributeSource operations;

	private final Supplier<LockTemplate> lockTemplate;

	/**
	 * Creates an interceptor.
	 * @param operations the compiled annotations
	 * @param lockTemplate the template to lock with, looked up on first use
	 */
	public DistributedLockInterceptor(LockAttributeSource operations, Supplier<LockTemplate> lockTemplate) {
		this.operations = operations;
		this.lockTemplate = SingletonSupplier.of(lockTemplate);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (target == null) {
			return invocation.proceed();
		}
		LockAttribute operation = this.operations.getOperation(invocation.getMethod(), target.getClass());
		if (operation == null) {
			return invocation.proceed();
		}
		@Nullable Object[] args = invocation.getArguments();
		if (operation.reactive() != null) {
			return ReactiveLocking.lock(operation, invocation, target, args, this.lockTemplate);
		}
		LockRequest request = operation.request(target, args);
		LockTemplate template = this.lockTemplate.get();
		return template.execute(request, (lease) -> invocation.proceed(), busy(operation, request, target, args),
				operation.asyncHold());
	}

	/** The answer when the lock stays busy: the fallback, a skip, or the exception. */
	static BusyCallback<Object> busy(LockAttribute operation, LockRequest request, Object target,
			@Nullable Object[] args) {
		if (!operation.answersBusy()) {
			return operation.throwingBusy();
		}
		return (timeout) -> {
			if (logger.isDebugEnabled()) {
				logger.debug("Lock '"
						+ request.key() + "' is busy; " + ((operation.fallback() != null)
								? "calling fallback " + operation.fallback().getName() : "skipping")
						+ " " + operation.description());
			}
			return operation.whenBusy(target, args);
		};
	}

	static LockAcquisitionException busyException(LockAttribute operation, LockAcquisitionException timeout) {
		return new LockAcquisitionException(timeout.getMessage() + " (for " + operation.description() + ")");
	}

}
