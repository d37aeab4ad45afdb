package dev.distlock.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when a backend may register its {@code LockProvider}: {@code distlock.provider}
 * is unset (every available backend registers, and exactly one must result) or names this
 * backend, or {@code distlock.<name>.enabled=true} adds it beside the default one.
 * {@code distlock.<name>.enabled=false} always turns it off. Modelled on Spring Boot's
 * {@code CacheCondition}.
 *
 * @since 0.1.0
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
@Documented
@Conditional(OnLockProviderCondition.class)
public @interface ConditionalOnLockProvider {

	/**
	 * The backend's provider name, e.g. {@code redis}.
	 * @return the name
	 */
	String value();

	/**
	 * Whether the backend registers only when chosen explicitly (by
	 * {@code distlock.provider} or {@code distlock.<name>.enabled=true}), never just
	 * because it is available. True for {@code local}, which is always available.
	 * @return {@code true} if it must be chosen
	 */
	boolean explicitOnly() default false;

}
