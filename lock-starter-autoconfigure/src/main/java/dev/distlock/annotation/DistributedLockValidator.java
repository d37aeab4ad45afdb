package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ConcurrentReferenceHashMap;
import org.springframework.util.function.SingletonSupplier;

/**
 * Checks every {@link DistributedLock @DistributedLock} method of each bean when the bean
 * is created, by compiling its {@link LockAttribute} (which is then cached for the
 * calls), so that a bad key expression, duration, fallback or provider fails the
 * application's startup with a {@link dev.distlock.core.LockConfigurationException}
 * naming the method and the offending value, not the first call in production. Runs after
 * the auto-proxy creator; an annotated bean that came out unproxied is logged as a
 * warning, since its locks would not be taken.
 *
 * @since 0.1.0
 */
public class DistributedLockValidator implements BeanPostProcessor, Ordered {

	private static final Log logger = LogFactory.getLog(DistributedLockValidator.class);

	private final Supplier<LockAttributeSource> operations;

	private final Set<Class<?>> checked = Collections.newSetFromMap(new ConcurrentReferenceHashMap<>());

	/**
	 * Creates a validator.
	 * @param operations the operation source, looked up when the first annotated bean is
	 * created
	 */
	public DistributedLockValidator(Supplier<LockAttributeSource> operations) {
		this.operations = SingletonSupplier.of(operations);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = ClassUtils.getUserClass(AopProxyUtils.ultimateTargetClass(bean));
		if (this.checked.contains(targetClass)
				|| !AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
			return bean;
		}
		Map<Method, DistributedLock> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<DistributedLock>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DistributedLock.class));
		if (!annotated.isEmpty()) {
			LockAttributeSource source = this.operations.get();
			for (Method method : annotated.keySet()) {
				source.getOperation(method, targetClass);
			}
			if (!AopUtils.isAopProxy(bean)) {
				logger.warn("Bean '" + beanName + "' (" + targetClass.getName() + ") has @DistributedLock methods "
						+ "but was not proxied, so they run without their locks. Is spring-aop on the classpath "
						+ "and distlock.aop.enabled true?");
			}
		}
		this.checked.add(targetClass);
		return bean;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
