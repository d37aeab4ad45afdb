package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The root object of a {@link DistributedLock#key() key} expression, as {@code #root}:
 * the method, its arguments and the target. Its properties can also be named without
 * {@code #root.}, e.g. {@code methodName}.
 *
 * @since 0.1.0
 */
public final class LockExpressionRoot {

	/**
	 * Properties an expression may name without {@code #root.}; anything else there is a
	 * mistake.
	 */
	static final Set<String> PROPERTIES = Set.of("method", "methodName", "args", "target", "targetClass");

	private final Method method;

	private final @Nullable Object[] args;

	private final Object target;

	private final Class<?> targetClass;

	LockExpressionRoot(Method method, @Nullable Object[] args, Object target, Class<?> targetClass) {
		this.method = method;
		this.args = args;
		this.target = target;
		this.targetClass = targetClass;
	}

	/**
	 * The annotated method, as declared by the target class.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	public String getMethodName() {
		return this.method.getName();
	}

	public @Nullable Object[] getArgs() {
		return this.args;
	}

	/**
	 * The target object, not the proxy.
	 * @return the target
	 */
	public Object getTarget() {
		return this.target;
	}

	public Class<?> getTargetClass() {
		return this.targetClass;
	}

}
