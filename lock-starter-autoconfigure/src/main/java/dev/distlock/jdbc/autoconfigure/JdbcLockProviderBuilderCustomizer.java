package dev.distlock.jdbc.autoconfigure;

import dev.distlock.jdbc.JdbcLockProviderBuilder;

/**
 * Callback that customizes the {@link JdbcLockProviderBuilder} the {@code jdbc} backend's
 * provider is built with, after {@code distlock.jdbc.*} has been applied: a customizer's
 * setting wins over the property. Beans of this type are applied in their
 * {@link org.springframework.core.annotation.Order order}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface JdbcLockProviderBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder to customize
	 */
	void customize(JdbcLockProviderBuilder builder);

}
