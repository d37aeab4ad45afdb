package dev.distlock.autoconfigure;

import dev.distlock.annotation.AsyncResultHandler;
import dev.distlock.annotation.DistributedLockAdvisor;
import dev.distlock.annotation.DistributedLockInterceptor;
import dev.distlock.annotation.DistributedLockValidator;
import dev.distlock.annotation.LockAttributeSource;
import dev.distlock.annotation.LockKeyResolver;
import dev.distlock.annotation.SpelLockKeyResolver;
import dev.distlock.core.LockTemplate;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The {@code @DistributedLock} support: key resolver, operation source, advisor and the
 * startup validator, all infrastructure beans that reach the {@link LockTemplate} lazily
 * (so that the advisor, which auto-proxy creators look up while other beans are being
 * created, never pulls the backends in early). Makes sure an auto-proxy creator exists
 * even without Spring Boot's {@code AopAutoConfiguration}, like
 * {@code @EnableTransactionManagement} does. Off with {@code distlock.aop.enabled=false}
 * or without spring-aop.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = { "org.springframework.aop.framework.autoproxy.AbstractAdvisorAutoProxyCreator",
		"org.aopalliance.intercept.MethodInterceptor",
		"org.springframework.expression.spel.standard.SpelExpressionParser" })
@ConditionalOnBooleanProperty(name = "distlock.aop.enabled", matchIfMissing = true)
@Import(DistributedLockConfiguration.AutoProxyRegistrar.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class DistributedLockConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockKeyResolver lockKeyResolver(BeanFactory beanFactory) {
		return new SpelLockKeyResolver(beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockAttributeSource distributedLockOperationSource(ObjectProvider<LockKeyResolver> keyResolver,
			ConfigurableBeanFactory beanFactory, ObjectProvider<LockTemplate> lockTemplate,
			ObjectProvider<AsyncResultHandler> asyncHandlers) {
		return new LockAttributeSource(keyResolver::getObject, new EmbeddedValueResolver(beanFactory),
				lockTemplate::getObject, () -> asyncHandlers.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockAdvisor distributedLockAdvisor(LockAttributeSource distributedLockOperationSource,
			ObjectProvider<LockTemplate> lockTemplate, Environment environment) {
		// read from the Environment, not DistlockProperties: this bean is created while
		// the auto-proxy creator is post-processing other beans, too early to create
		// ordinary beans
		int order = Binder.get(environment)
			.bind("distlock.aop.order", Integer.class)
			.orElse(Ordered.LOWEST_PRECEDENCE - 1);
		return new DistributedLockAdvisor(
				new DistributedLockInterceptor(distributedLockOperationSource, lockTemplate::getObject), order);
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockValidator distributedLockValidator(
			ObjectProvider<LockAttributeSource> distributedLockOperationSource) {
		return new DistributedLockValidator(distributedLockOperationSource::getObject);
	}

	/**
	 * Registers Spring's infrastructure auto-proxy creator unless a more capable one
	 * (Spring Boot's AspectJ one) is registered too, in which case that one wins.
	 */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
