package dev.distlock.leader;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockContext;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Applies {@link LeaderOnly @LeaderOnly}: proceeds on the leader with the term's lease
 * current in {@link LockContext}, skips elsewhere.
 *
 * @since 0.1.0
 */
public class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LeaderOnlyInterceptor.class);

	private final Supplier<@Nullable LeaderCandidate> candidate;

	/**
	 * Creates an interceptor.
	 * @param candidate this instance's candidate, looked up at each call ({@code null} if
	 * leader election is off)
	 */
	public LeaderOnlyInterceptor(Supplier<@Nullable LeaderCandidate> candidate) {
		this.candidate = candidate;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		LeaderCandidate candidate = this.candidate.get();
		if (candidate == null) {
			throw new LockConfigurationException("@LeaderOnly method " + invocation.getMethod()
					+ " needs leader election: set distlock.leader.enabled=true");
		}
		LeaderTerm term = candidate.currentTerm().orElse(null);
		if (term == null) {
			if (logger.isDebugEnabled()) {
				logger.debug(
						"Not the leader of group '" + candidate.getGroup() + "': skipping " + invocation.getMethod());
			}
			return null;
		}
		LockContext.push(term.lease());
		try {
			return invocation.proceed();
		}
		finally {
			LockContext.pop(term.lease());
		}
	}

	/**
	 * An advisor applying this interceptor to {@code @LeaderOnly} methods (on the method,
	 * or on the interface or superclass method it implements), refusing methods that
	 * return a primitive other than {@code void}.
	 * @param interceptor the interceptor
	 * @param order the advisor's order
	 * @return the advisor
	 */
	public static DefaultPointcutAdvisor advisor(LeaderOnlyInterceptor interceptor, int order) {
		DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(new LeaderOnlyPointcut(), interceptor);
		advisor.setOrder(order);
		return advisor;
	}

	private static final class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			if (!AnnotatedElementUtils.hasAnnotation(specific, LeaderOnly.class)
					&& !AnnotatedElementUtils.hasAnnotation(method, LeaderOnly.class)) {
				return false;
			}
			Class<?> returnType = method.getReturnType();
			if (returnType.isPrimitive() && returnType != void.class) {
				throw new LockConfigurationException("@LeaderOnly method " + method + " returns " + returnType
						+ ", which a skipped call cannot give; return void or an object type");
			}
			return true;
		}

	}

}
