package dev.distlock.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.distlock.core.LockKeyException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import dev.distlock.core.callback.AsyncHold;
import dev.distlock.core.callback.BusyCallback;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ObjectUtils;

/**
 * One {@link DistributedLock @DistributedLock} method, compiled: the key expression
 * parsed, durations parsed, the fallback method looked up, everything checked. Built once
 * per method and target class by {@link LockAttributeSource}; per call it only evaluates
 * the key. Immutable and thread-safe.
 *
 * @since 0.1.0
 */
public final class LockAttribute {

	private final Method method;

	private final Class<?> targetClass;

	private final String description;

	private final String namePrefix;

	/**
	 * The bounded name meters and spans are tagged with: the annotation's name, or
	 * Class.method.
	 */
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

	/**
	 * The answer to a busy lock when the annotation gives none: the exception naming the
	 * method. Shared by every call.
	 */
	private final BusyCallback<Object> throwingBusy;

	/**
	 * Every call's request but its key, checked once by
	 * {@link LockRequest.Builder#build()} when it is built.
	 */
	private final LockRequest prototype;

	private LockAttribute(Builder builder) {
		Method method = builder.method;
		Class<?> targetClass = builder.targetClass;
		String name = builder.name;
		LockKeyResolver.CompiledKey key = builder.key;
		AsyncResultHandler async = builder.async;
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
		this.keyExpression = builder.keyExpression;
		this.type = builder.type;
		this.permits = builder.permits;
		this.lease = builder.lease;
		this.waitTime = builder.waitTime;
		this.provider = builder.provider;
		this.onFailure = builder.onFailure;
		this.fallback = builder.fallback;
		this.async = async;
		this.asyncHold = (async != null)
				? (result, held, completion) -> async.whenComplete(result, completion::complete) : null;
		this.reactive = builder.reactive;
		this.throwingBusy = (timeout) -> {
			throw DistributedLockInterceptor.busyException(this, timeout);
		};
		// the key of a call is known only then; the prototype carries the expression as
		// its label
		String label = (key != null) ? this.namePrefix + this.keyExpression : this.namePrefix;
		this.prototype = LockRequest.builder(label)
			.name(this.metricName)
			.type(this.type)
			.permits(this.permits)
			.lease(this.lease)
			.waitTime(this.waitTime)
			.provider(this.provider)
			.holdAtLeast(builder.holdAtLeast)
			.build();
	}

	/**
	 * Starts an operation of a method.
	 * @param method the annotated method
	 * @param targetClass the class it is called on
	 * @return a builder
	 */
	static Builder builder(Method method, Class<?> targetClass) {
		return new Builder(method, targetClass);
	}

	/**
	 * Reactor return types, whose lock is taken on subscription and held until they
	 * terminate.
	 */
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
		return targetClass.getName() + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes())
					.map(Class::getSimpleName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

	/**
	 * The key of one call, without {@code distlock.key-prefix}.
	 * @param target the target object
	 * @param args the call's arguments
	 * @return the key
	 * @throws LockKeyException if the expression fails or gives {@code null}, a blank
	 * string or a key longer than {@link LockRequest#MAX_KEY_LENGTH}
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
		return this.prototype.withKey(key);
	}

	/**
	 * What a call returns without running when the lock stays busy: the fallback's result
	 * or an empty value.
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
	 * Whether the lock is released when the method returns, or (for an asynchronous
	 * result) when the result completes.
	 * @return the handler of the asynchronous result, or {@code null} for synchronous
	 * methods
	 */
	@Nullable AsyncResultHandler async() {
		return this.async;
	}

	/**
	 * How the template holds the lock until an asynchronous result completes.
	 * @return the hold, or {@code null} for a synchronous method
	 */
	@Nullable AsyncHold<Object> asyncHold() {
		return this.asyncHold;
	}

	/**
	 * The Reactor type the method returns.
	 * @return {@code MONO}, {@code FLUX}, or {@code null} for other return types
	 */
	@Nullable Reactive reactive() {
		return this.reactive;
	}

	/**
	 * Whether a busy lock is answered without throwing (by a fallback method or by
	 * skipping).
	 * @return {@code true} with a fallback or {@link LockFailureAction#SKIP}
	 */
	boolean answersBusy() {
		return this.fallback != null || this.onFailure == LockFailureAction.SKIP;
	}

	/**
	 * The answer to a busy lock when {@link #answersBusy()} is {@code false}.
	 * @return the callback throwing the exception naming the method
	 */
	BusyCallback<Object> throwingBusy() {
		return this.throwingBusy;
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

	/**
	 * How messages name the method.
	 * @return the target class, the method and its parameter types
	 */
	public String description() {
		return this.description;
	}

	@Override
	public String toString() {
		return "LockAttribute[" + this.description + ", key="
				+ ((this.key != null) ? this.namePrefix + "{" + this.keyExpression + "}" : this.namePrefix) + ", type="
				+ this.type + "]";
	}

	/**
	 * The lock request of one call: a key that is a {@link Collection} or an array locks
	 * its elements together, all or none, each a key of its own with the name prefix
	 * ({@link LockRequest.Builder#keys(Collection)}). Throws {@link LockKeyException} if
	 * the expression fails or gives null, no element, or a null or blank element.
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
				: Arrays.stream(ObjectUtils.toObjectArray(value)))
			.map(this::keyOf)
			.toList();
		if (keys.isEmpty()) {
			throw new LockKeyException("Key expression '" + this.keyExpression + "' of @DistributedLock on "
					+ this.description + " gave no key (an empty collection); the method was not run");
		}
		return request(keys.get(0)).toBuilder().keys(keys).build();
	}

	/**
	 * Collects what {@link LockAttributeSource} read off the annotation; {@link #build()}
	 * checks the request through {@link LockRequest.Builder#build()}, the one place
	 * requests are checked.
	 */
	static final class Builder {

		private final Method method;

		private final Class<?> targetClass;

		private String name = "";

		private LockKeyResolver.@Nullable CompiledKey key;

		private String keyExpression = "";

		private LockType type = LockType.MUTEX;

		private int permits = 1;

		private @Nullable Duration lease;

		private @Nullable Duration waitTime;

		private @Nullable Duration holdAtLeast;

		private @Nullable String provider;

		private LockFailureAction onFailure = LockFailureAction.THROW;

		private @Nullable Method fallback;

		private @Nullable AsyncResultHandler async;

		private @Nullable Reactive reactive;

		private Builder(Method method, Class<?> targetClass) {
			this.method = method;
			this.targetClass = targetClass;
		}

		Builder name(String name) {
			this.name = name;
			return this;
		}

		Builder key(LockKeyResolver.@Nullable CompiledKey key, String expression) {
			this.key = key;
			this.keyExpression = expression;
			return this;
		}

		Builder type(LockType type, int permits) {
			this.type = type;
			this.permits = permits;
			return this;
		}

		Builder times(@Nullable Duration lease, @Nullable Duration waitTime, @Nullable Duration holdAtLeast) {
			this.lease = lease;
			this.waitTime = waitTime;
			this.holdAtLeast = holdAtLeast;
			return this;
		}

		Builder provider(@Nullable String provider) {
			this.provider = provider;
			return this;
		}

		Builder onFailure(LockFailureAction onFailure, @Nullable Method fallback) {
			this.onFailure = onFailure;
			this.fallback = fallback;
			return this;
		}

		Builder result(@Nullable AsyncResultHandler async, @Nullable Reactive reactive) {
			this.async = async;
			this.reactive = reactive;
			return this;
		}

		/**
		 * Builds the operation.
		 * @return the operation
		 * @throws dev.distlock.core.LockConfigurationException if the request it makes is
		 * refused
		 */
		LockAttribute build() {
			return new LockAttribute(this);
		}

	}

}
