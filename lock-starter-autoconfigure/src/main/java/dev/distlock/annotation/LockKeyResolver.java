package dev.distlock.annotation;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Turns the {@link DistributedLock#key() key} attribute of an annotated method into a key
 * per call, in two steps: {@link #compile} once per method and target class, when the
 * bean is created, where every mistake that can be seen without arguments must be
 * reported; then {@link CompiledKey#evaluate} for every call, which should do no parsing.
 * The default is {@link SpelLockKeyResolver}; declare a bean of this type to replace it.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockKeyResolver {

	/**
	 * Compiles the key expression of one method.
	 * @param expression the {@code key} attribute, never empty
	 * @param method the annotated method as declared by the target class
	 * @param targetClass the class of the bean's target object
	 * @return the compiled key
	 * @throws dev.distlock.core.LockConfigurationException if the expression is invalid;
	 * the message names the expression and what is wrong with it
	 */
	CompiledKey compile(String expression, Method method, Class<?> targetClass);

	/**
	 * A key expression ready to evaluate. Thread-safe.
	 */
	@FunctionalInterface
	interface CompiledKey {

		/**
		 * Evaluates the key for one call. The caller turns the result into a string and
		 * rejects {@code null} and blank values, and wraps an exception thrown here in a
		 * {@link dev.distlock.core.LockKeyException}.
		 * @param target the target object (not the proxy)
		 * @param args the call's arguments
		 * @return the key's value
		 */
		@Nullable Object evaluate(Object target, @Nullable Object[] args);

	}

}
