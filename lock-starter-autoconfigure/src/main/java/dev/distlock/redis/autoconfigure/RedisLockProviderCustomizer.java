package dev.distlock.redis.autoconfigure;

import dev.distlock.redis.RedisLockProvider;

/**
 * Callback that customizes the {@code redis} backend's {@link RedisLockProvider} before
 * it is used, after {@code distlock.redis.*} has been applied: a customizer's setting
 * wins over the property. Beans of this type are applied in their
 * {@link org.springframework.core.annotation.Order order}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RedisLockProviderCustomizer {

	/**
	 * Customizes the provider.
	 * @param provider the provider to customize
	 */
	void customize(RedisLockProvider provider);

}
