package dev.distlock.redisson.autoconfigure;

import dev.distlock.redisson.RedissonLockProvider;

/**
 * Callback that customizes the {@code redisson} backend's {@link RedissonLockProvider}
 * before it is used, after {@code distlock.redisson.*} has been applied: a customizer's
 * setting wins over the property. Beans of this type are applied in their
 * {@link org.springframework.core.annotation.Order order}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RedissonLockProviderCustomizer {

	/**
	 * Customizes the provider.
	 * @param provider the provider to customize
	 */
	void customize(RedissonLockProvider provider);

}
