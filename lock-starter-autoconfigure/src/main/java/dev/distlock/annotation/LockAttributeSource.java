package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ConcurrentReferenceHashMap;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Finds the {@link DistributedLock @DistributedLock} of a method and compiles it into a
 * {@link LockAttribute}, once per method and target class (cached, like Spring's
 * transaction attribute source). Compiling checks everything that can be known before a
 * call and throws {@link LockConfigurationException} naming the method and the offending
 * value: key syntax and variables (through the {@link LockKeyResolver}), durations (after
 * resolving {@code ${...}}), permits, {@code onFailure} and the return type, the fallback
 * method, the provider and whether it supports the type.
 * <p>
 * Durations: {@code "500ms"}, {@code "30s"}, {@code "5m"}, {@code "2h"}, {@code "1d"}
 * (also {@code us}, {@code ns}), ISO-8601 ({@code "PT1M"}), or a plain number of
 * milliseconds ({@code "0"} tries once), as Spring Boot reads duration properties.
 *
 * @since 0.1.0
 */
public class LockAttributeSource {

	private static final Object NONE = new Object();

	private static final String PUBLISHER = "org.reactivestreams.Publisher";

	/**
	 * What a method was seen on so far: a {@link Seen}, or {@link #MANY} target classes.
	 */
	private static final Object MANY = new Object();

	private final Map<MethodClassKey, Object> cache = new ConcurrentReferenceHashMap<>(256);

	/**
	 * Per method, its operation on the one target class it is called on (the usual case),
	 * looked up without allocating a {@link MethodClassKey}.
	 */
	private final Map<Method, Object> byMethod = new ConcurrentReferenceHashMap<>(256);

	private final Supplier<LockKeyResolver> keyResolver;

	private final @Nullable StringValueResolver valueResolver;

	private final Supplier<LockTemplate> lockTemplate;

	private final Supplier<List<AsyncResultHandler>> asyncHandlers;

	/**
	 * Creates a source. The suppliers are called on first use, so that creating the
	 * source does not create the lock template (and its backends) early.
	 * @param keyResolver compiles key expressions
	 * @param valueResolver resolves {@code ${...}} in durations, or {@code null} for none
	 * @param lockTemplate the template whose providers the operations are checked against
	 * @param asyncHandlers handlers of asynchronous return types beyond
	 * {@code CompletionStage}
	 */
	public LockAttributeSource(Supplier<LockKeyResolver> keyResolver, @Nullable StringValueResolver valueResolver,
			Supplier<LockTemplate> lockTemplate, Supplier<List<AsyncResultHandler>> asyncHandlers) {
		this.keyResolver = SingletonSupplier.of(keyResolver);
		this.valueResolver = valueResolver;
		this.lockTemplate = SingletonSupplier.of(lockTemplate);
		this.asyncHandlers = SingletonSupplier.of(() -> {
			List<AsyncResultHandler> handlers = new ArrayList<>(asyncHandlers.get());
			handlers.add(new CompletionStageResultHandler());
			return List.copyOf(handlers);
		});
	}

	/**
	 * The operation of a method called on an object of the given class.
	 * @param method the method (as the proxy saw it: possibly an interface's)
	 * @param targetClass the class of the target object
	 * @return the operation, or {@code null} if the method is not annotated
	 * @throws LockConfigurationException if the annotation is invalid
	 */
	public @Nullable LockAttribute getOperation(Method method, Class<?> targetClass) {
		Object seen = this.byMethod.get(method);
		if (seen instanceof Seen one && one.targetClass() == targetClass) {
			return one.operation();
		}
		LockAttribute operation = lookUp(method, targetClass);
		if (seen == null) {
			this.byMethod.putIfAbsent(method, new Seen(targetClass, operation));
		}
		else if (seen != MANY) {
			// a second target class: from now on by method and class
			this.byMethod.put(method, MANY);
		}
		return operation;
	}

	private @Nullable LockAttribute lookUp(Method method, Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.cache.get(cacheKey);
		if (cached == null) {
			LockAttribute built = build(method, targetClass);
			cached = (built != null) ? built : NONE;
			this.cache.put(cacheKey, cached);
		}
		return (cached != NONE) ? (LockAttribute) cached : null;
	}

	private @Nullable LockAttribute build(Method method, Class<?> rawTargetClass) {
		Class<?> targetClass = ClassUtils.getUserClass(rawTargetClass);
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		DistributedLock found = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		DistributedLock annotation = (found != null || specific == method) ? found
				: AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		if (annotation == null) {
			return null;
		}
		String where = "@DistributedLock on " + LockAttribute.describe(specific, targetClass);
		checkProxyable(specific, where);
		Function<String, String> subject = (setting) -> switch (setting) {
			case "lease" -> "lease '" + annotation.lease() + "'";
			case "waitTime" -> "waitTime '" + annotation.waitTime() + "'";
			case "holdAtLeast" -> "holdAtLeast '" + annotation.holdAtLeast() + "'";
			case "type" -> "the type";
			default -> setting;
		};
		Duration lease = duration("lease", annotation.lease(), where);
		Duration waitTime = duration("waitTime", annotation.waitTime(), where);
		LockType type = annotation.type();
		int permits = annotation.permits();
		check(where, () -> {
			LockRequest.checkLease(lease, subject);
			LockRequest.checkWaitTime(waitTime, subject);
			LockRequest.checkPermits(type, permits, subject);
		});
		Class<?> returnType = specific.getReturnType();
		LockAttribute.Reactive reactive = isSuspending(specific) ? LockAttribute.Reactive.MONO : reactive(returnType);
		AsyncResultHandler async = (reactive != null) ? null : asyncHandler(returnType, where);
		String fallbackName = annotation.fallbackMethod().trim();
		LockFailureAction onFailure = annotation.onFailure();
		if (!fallbackName.isEmpty() && isSuspending(specific)) {
			throw new LockConfigurationException(where + ": fallbackMethod='" + fallbackName + "' is not supported on "
					+ "a Kotlin suspend function; use onFailure=SKIP or catch LockAcquisitionException");
		}
		if (!fallbackName.isEmpty() && onFailure == LockFailureAction.SKIP) {
			throw new LockConfigurationException(where + ": onFailure=SKIP and fallbackMethod='" + fallbackName
					+ "' contradict each other; keep one");
		}
		if (onFailure == LockFailureAction.SKIP && returnType.isPrimitive() && returnType != void.class) {
			throw new LockConfigurationException(where + ": onFailure=SKIP cannot skip a method returning "
					+ returnType.getName() + " (it would have to return null); return a wrapper type, Optional or "
					+ "void, or use a fallbackMethod");
		}
		Method fallback = fallbackName.isEmpty() ? null : fallback(specific, targetClass, fallbackName, where);
		String provider = annotation.provider().trim();
		checkProvider(provider.isEmpty() ? null : provider, type, where);
		String expression = annotation.key().trim();
		LockKeyResolver.CompiledKey key = expression.isEmpty() ? null
				: this.keyResolver.get().compile(expression, specific, targetClass);
		Duration holdAtLeast = duration("holdAtLeast", annotation.holdAtLeast(), where);
		check(where, () -> LockRequest.checkHoldAtLeast(holdAtLeast, lease, subject));
		// the request is checked as every request is, now rather than on the first call
		return checked(where,
				() -> LockAttribute.builder(specific, targetClass)
					.name(annotation.name().trim())
					.key(key, expression)
					.type(type, permits)
					.times(lease, waitTime, holdAtLeast)
					.provider(provider.isEmpty() ? null : provider)
					.onFailure(onFailure, fallback)
					.result(async, reactive)
					.build());
	}

	/** Runs a check, its failure prefixed with where the annotation is. */
	private static void check(String where, Runnable check) {
		checked(where, () -> {
			check.run();
			return null;
		});
	}

	private static <T> T checked(String where, Supplier<T> check) {
		try {
			return check.get();
		}
		catch (LockConfigurationException ex) {
			throw new LockConfigurationException(where + ": " + ex.getMessage(), ex);
		}
	}

	private static void checkProxyable(Method method, String where) {
		int modifiers = method.getModifiers();
		String problem = Modifier.isStatic(modifiers) ? "static"
				: Modifier.isPrivate(modifiers) ? "private" : Modifier.isFinal(modifiers) ? "final" : null;
		if (problem != null) {
			throw new LockConfigurationException(where + ": the method is " + problem + ", so a Spring proxy cannot "
					+ "intercept it and the lock would silently not be taken; make it a public, non-final instance "
					+ "method called through the bean");
		}
	}

	private @Nullable Duration duration(String attribute, String value, String where) {
		String resolved = value;
		if (this.valueResolver != null && value.contains("${")) {
			try {
				resolved = this.valueResolver.resolveStringValue(value);
			}
			catch (IllegalArgumentException ex) {
				throw new LockConfigurationException(where + ": " + attribute + " '" + value
						+ "' has a placeholder that cannot be resolved: " + ex.getMessage(), ex);
			}
			// without a strict PropertySourcesPlaceholderConfigurer unresolvable
			// placeholders come back as they were
			if (resolved != null && resolved.contains("${")) {
				throw new LockConfigurationException(where + ": " + attribute + " '" + value
						+ "' has a placeholder that cannot be resolved (resolved to '" + resolved + "')");
			}
		}
		if (resolved == null || resolved.isBlank()) {
			return null;
		}
		try {
			return DurationStyle.detectAndParse(resolved.trim());
		}
		catch (IllegalArgumentException ex) {
			String shown = resolved.equals(value) ? "'" + value + "'" : "'" + value + "' (= '" + resolved + "')";
			throw new LockConfigurationException(where + ": " + attribute + " " + shown + " is not a duration; "
					+ "write e.g. \"500ms\", \"30s\", \"5m\", \"PT1M\" or a number of milliseconds", ex);
		}
	}

	private static LockAttribute.@Nullable Reactive reactive(Class<?> returnType) {
		// by name: reactor-core is optional
		return switch (returnType.getName()) {
			case "reactor.core.publisher.Mono" -> LockAttribute.Reactive.MONO;
			case "reactor.core.publisher.Flux" -> LockAttribute.Reactive.FLUX;
			default -> null;
		};
	}

	private @Nullable AsyncResultHandler asyncHandler(Class<?> returnType, String where) {
		for (AsyncResultHandler handler : this.asyncHandlers.get()) {
			if (handler.supports(returnType)) {
				return handler;
			}
		}
		if (CompletionStage.class.isAssignableFrom(returnType)
				|| isPublisher(returnType, returnType.getClassLoader())) {
			throw new LockConfigurationException(where + ": return type " + returnType.getName() + " is "
					+ "asynchronous and not supported, so the lock would be released before the work ran; return "
					+ "CompletableFuture, CompletionStage, Mono or Flux, or register an AsyncResultHandler bean for it");
		}
		return null;
	}

	private static boolean isPublisher(Class<?> type, @Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent(PUBLISHER, classLoader)) {
			return false;
		}
		return ClassUtils.resolveClassName(PUBLISHER, classLoader).isAssignableFrom(type);
	}

	private static Method fallback(Method method, Class<?> targetClass, String name, String where) {
		Class<?>[] parameterTypes = method.getParameterTypes();
		Method fallback = ReflectionUtils.findMethod(targetClass, name, parameterTypes);
		if (fallback == null) {
			List<String> sameName = new ArrayList<>();
			ReflectionUtils.doWithMethods(targetClass, (m) -> sameName.add(LockAttribute.describe(m, targetClass)),
					(m) -> m.getName().equals(name));
			throw new LockConfigurationException(where + ": fallbackMethod '" + name + "' not found; it must be a "
					+ "method of " + targetClass.getName() + " with the same parameter types "
					+ LockAttribute.describe(method, targetClass).replaceFirst("^[^(]*", "")
					+ (sameName.isEmpty() ? "" : " (found only " + sameName + ")"));
		}
		Class<?> returnType = method.getReturnType();
		boolean compatible = (returnType == void.class) ? fallback.getReturnType() == void.class
				: ClassUtils.isAssignable(returnType, fallback.getReturnType());
		if (!compatible) {
			throw new LockConfigurationException(where + ": fallbackMethod '" + name + "' returns "
					+ fallback.getReturnType().getName() + ", which cannot stand in for " + returnType.getName());
		}
		ReflectionUtils.makeAccessible(fallback);
		return fallback;
	}

	private void checkProvider(@Nullable String provider, LockType type, String where) {
		LockTemplate template = this.lockTemplate.get();
		LockProvider chosen;
		if (provider != null) {
			chosen = template.providers().get(provider);
			if (chosen == null) {
				throw new LockConfigurationException(where + ": provider '" + provider + "' is not configured; "
						+ "available: " + template.providers().keySet());
			}
		}
		else {
			chosen = template.defaultProvider();
		}
		if (!chosen.supportedTypes().contains(type)) {
			throw new LockConfigurationException(where + ": lock provider '" + chosen.name() + "' does not support "
					+ type + " locks; it supports " + chosen.supportedTypes());
		}
	}

	/**
	 * Whether the method is a Kotlin {@code suspend fun} that Spring AOP runs as a
	 * {@code Mono} (it does when kotlinx-coroutines-reactor is present): such a method
	 * returns before its body runs, so it must lock per subscription like a {@code Mono}
	 * method, or the lock would be released before the coroutine ran.
	 */
	private static boolean isSuspending(Method method) {
		return KotlinDetector.isSuspendingFunction(method) && ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
				method.getDeclaringClass().getClassLoader());
	}

	/**
	 * The operation of a method on the one target class it has been called on.
	 *
	 * @param targetClass the target class
	 * @param operation the operation, or {@code null} if the method is not annotated
	 */
	private record Seen(Class<?> targetClass, @Nullable LockAttribute operation) {
	}

}
