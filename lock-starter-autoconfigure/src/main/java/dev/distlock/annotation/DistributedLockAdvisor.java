package dev.distlock.annotation;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies {@link DistributedLockInterceptor} to methods annotated with
 * {@link DistributedLock @DistributedLock} (directly, as a meta-annotation, or on the
 * interface or superclass method they implement). Registered as an infrastructure bean so
 * that every auto-proxy creator applies it, including the one
 * {@code @EnableTransactionManagement} registers. Its order decides how it nests with
 * other advice: the default, {@code Ordered.LOWEST_PRECEDENCE - 1}, puts the lock just
 * outside {@code @Transactional}, so the lock is taken before the transaction begins and
 * released after it commits.
 *
 * @since 0.1.0
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, DistributedLock.class, true);

	private final transient DistributedLockInterceptor interceptor;

	/**
	 * Creates the advisor.
	 * @param interceptor the advice
	 * @param order the advisor's order ({@code distlock.aop.order})
	 */
	public DistributedLockAdvisor(DistributedLockInterceptor interceptor, int order) {
		this.interceptor = interceptor;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
