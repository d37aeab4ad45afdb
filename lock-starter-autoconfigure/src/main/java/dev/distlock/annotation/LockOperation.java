package dev.distlock.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.distlock.core.AsyncHold;
import dev.distlock.core.LockKeyException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ObjectUtils;

/**
 * One {@link DistributedLock @DistributedLock} method, compiled: the key expression parsed, durations parsed, the
 * fallback method looked up, everything checked. Built once per method and target class by
 * {@link LockOperationSource}; per call it only evaluates the key. Immutable and thread-safe.
 *
 * @since 0.1.0
 */
public final class LockOperation {

	private final Method method;

	private final Class<?> targetClass;

	private final String description;

	private final String namePrefix;

	/** The bounded name meters and spans are tagged with: the annotation's name, or Class.method. */
	private final String metricName;

	private final LockKeyResolver.@Nullable CompiledKey key;

	private final String keyExpression;

	private final LockType type;

	private final int permits;

	private final @Nullable Duration lease;

	private final @Nullable Duration waitTime;

	private final @Nullable String provider;

	private final LockFailureAction onFailure;

	private final @Nullable Method fallback;

	private final @Nullable AsyncResultHandler async;

	private final @Nullable AsyncHold<Object> asyncHold;

	private final @Nullable Reactive reactive;

	LockOperation(Method method, Class<?> targetClass, String name, LockKeyResolver.@Nullable CompiledKey key,
			String keyExpression, LockType type, int permits, @Nullable Duration lease, @Nullable Duration waitTime,
			@Nullable String provider, LockFailureAction onFailure, @Nullable Method fallback,
			@Nullable AsyncResultHandler async, @Nullable Reactive reactive) {
		this.method = method;
		this.targetClass = targetClass;
		this.description = describe(method, targetClass);
		this.metricName = name.isEmpty() ? targetClass.getSimpleName() + "." + method.getName() : name;
		if (key == null) {
			// neither key nor name: the method's identity is the key
			this.namePrefix = name.isEmpty() ? targetClass.getName() + "." + method.getName() : name;
		}
		else {
			this.namePrefix = name.isEmpty() ? "" : name + ":";
		}
		this.key = key;
		this.keyExpression = keyExpression;
		this.type = type;
		this.permits = permits;
		this.lease = lease;
		this.waitTime = waitTime;
		this.provider = provider;
		this.onFailure = onFailure;
		this.fallback = fallback;
		this.async = async;
		this.asyncHold = (async != null) ? (result, held, completion) -> async.whenComplete(result,
				completion::complete) : null;
		this.reactive = reactive;
	}

	/** Reactor return types, whose lock is taken on subscription and held until they terminate. */
	enum Reactive {

		MONO, FLUX

	}

	/**
	 * How messages name a method: the target class, the method and its parameter types.
	 * @param method the method
	 * @param targetClass the class it is called on
	 * @return e.g. {@code com.acme.OrderService.ship(Order, boolean)}
	 */
	static String describe(Method method, Class<?> targetClass) {
		return targetClass.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

	/**
	 * The key of one call, without {@code distlock.key-prefix}.
	 * @param target the target object
	 * @param args the call's arguments
	 * @return the key
	 * @throws LockKeyException if the expression fails or gives {@code null}, a blank string or a key longer than
	 * {@link LockRequest#MAX_KEY_LENGTH}
	 */
	public String key(Object target, @Nullable Object[] args) {
		if (this.key == null) {
			return this.namePrefix;
		}
		return keyOf(evaluate(this.key, target, args));
	}

	private @Nullable Object evaluate(LockKeyResolver.CompiledKey key, Object target, @Nullable Object[] args) {
		try {
			return key.evaluate(target, args);
		}
		catch (RuntimeException ex) {
			throw new LockKeyException("Key expression '" + this.keyExpression + "' of @DistributedLock on "
					+ this.description + " failed: " + ex.getMessage(), ex);
		}
	}

	private String keyOf(@Nullable Object value) {
		if (value == null) {
			throw new LockKeyException("Key expression '" + this.keyExpression + "' of @DistributedLock on "
					+ this.description + " gave null; the method was not run");
		}
		String text = String.valueOf(value);
		if (text.isBlank()) {
			throw new LockKeyException("Key expression '" + this.keyExpression + "' of @DistributedLock on "
					+ this.description + " gave a blank string ('" + text + "'); the method was not run");
		}
		if (this.namePrefix.length() + text.length() > LockRequest.MAX_KEY_LENGTH) {
			throw new LockKeyException("Key expression '" + this.keyExpression + "' of @DistributedLock on "
					+ this.description + " gave a key of " + (this.namePrefix.length() + text.length())
					+ " characters, more than " + LockRequest.MAX_KEY_LENGTH + "; the method was not run");
		}
		return this.namePrefix.isEmpty() ? text : this.namePrefix + text;
	}

	/**
	 * The lock request of one call.
	 * @param key the call's key
	 * @return the request
	 */
	public LockRequest request(String key) {
		return LockRequest.builder(key)
			.name(this.metricName)
			.type(this.type)
			.permits(this.permits)
			.lease(this.lease)
			.waitTime(this.waitTime)
			.provider(this.provider)
			.holdAtLeast(this.holdAtLeast)
			.build();
	}

	/**
	 * What a call returns without running when the lock stays busy: the fallback's result or an empty value.
	 * @param target the target object
	 * @param args the call's arguments
	 * @return the result to return
	 * @throws Throwable what the fallback threw
	 */
	@Nullable Object whenBusy(Object target, @Nullable Object[] args) throws Throwable {
		if (this.fallback != null) {
			try {
				return this.fallback.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}
		Class<?> returnType = this.method.getReturnType();
		if (returnType == Optional.class) {
			return Optional.empty();
		}
		return (this.async != null) ? this.async.empty(returnType) : null;
	}

	/**
	 * Whether the lock is released when the method returns, or (for an asynchronous result) when the result
	 * completes.
	 * @return the handler of the asynchronous result, or {@code null} for synchronous methods
	 */
	@Nullable AsyncResultHandler async() {
		return this.async;
	}

	/** @return how the template holds the lock until an asynchronous result completes; {@code null} if synchronous */
	@Nullable AsyncHold<Object> asyncHold() {
		return this.asyncHold;
	}

	/** @return the Reactor type the method returns: {@code MONO}, {@code FLUX}, or {@code null} for others */
	@Nullable Reactive reactive() {
		return this.reactive;
	}

	/**
	 * Whether a busy lock is answered without throwing (by a fallback method or by skipping).
	 * @return {@code true} with a fallback or {@link LockFailureAction#SKIP}
	 */
	boolean answersBusy() {
		return this.fallback != null || this.onFailure == LockFailureAction.SKIP;
	}

	public Method method() {
		return this.method;
	}

	public Class<?> targetClass() {
		return this.targetClass;
	}

	public LockType type() {
		return this.type;
	}

	public int permits() {
		return this.permits;
	}

	public @Nullable Duration lease() {
		return this.lease;
	}

	public @Nullable Duration waitTime() {
		return this.waitTime;
	}

	public @Nullable String provider() {
		return this.provider;
	}

	public LockFailureAction onFailure() {
		return this.onFailure;
	}

	public @Nullable Method fallback() {
		return this.fallback;
	}

	/** @return the method as messages name it */
	public String description() {
		return this.description;
	}

	@Override
	public String toString() {
		return "LockOperation[" + this.description + ", key=" + ((this.key != null) ? this.namePrefix + "{"
				+ this.keyExpression + "}" : this.namePrefix) + ", type=" + this.type + "]";
	}

	private @Nullable Duration holdAtLeast; // set once while it is built, before it is published
	void holdAtLeast(@Nullable Duration holdAtLeast) {
		this.holdAtLeast = holdAtLeast;
	}

	/**
	 * The lock request of one call: a key that is a {@link Collection} or an array locks its elements together, all
	 * or none, each a key of its own with the name prefix ({@link LockRequest.Builder#keys(Collection)}). Throws
	 * {@link LockKeyException} if the expression fails or gives null, no element, or a null or blank element.
	 */
	public LockRequest request(Object target, @Nullable Object[] args) {
		if (this.key == null) {
			return request(this.namePrefix);
		}
		Object value = evaluate(this.key, target, args);
		if (!(value instanceof Collection<?>) && !ObjectUtils.isArray(value)) {
			return request(keyOf(value));
		}
		List<String> keys = ((value instanceof Collection<?> collection) ? collection.stream()
				: Arrays.stream(ObjectUtils.toObjectArray(value))).map(this::keyOf).toList();
		if (keys.isEmpty()) {
			throw new LockKeyException("Key expression '" + this.keyExpression + "' of @DistributedLock on "
					+ this.description + " gave no key (an empty collection); the method was not run");
		}
		return request(keys.get(0)).toBuilder().keys(keys).build();
	}

}
