package dev.distlock.autoconfigure;

import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The condition behind {@link ConditionalOnLockProvider}.
 */
class OnLockProviderCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLockProvider.class.getName());
		String name = (String) attributes.get("value");
		boolean explicitOnly = (Boolean) attributes.get("explicitOnly");
		Environment environment = context.getEnvironment();
		String enabled = environment.getProperty("distlock." + name + ".enabled");
		if ("false".equalsIgnoreCase(enabled)) {
			return ConditionOutcome.noMatch("distlock." + name + ".enabled is false");
		}
		if ("true".equalsIgnoreCase(enabled)) {
			return ConditionOutcome.match("distlock." + name + ".enabled is true");
		}
		String chosen = environment.getProperty("distlock.provider");
		if (chosen == null || chosen.isBlank()) {
			return explicitOnly ? ConditionOutcome.noMatch("distlock.provider is not set and '" + name
					+ "' is only used when chosen") : ConditionOutcome.match("distlock.provider is not set");
		}
		return name.equalsIgnoreCase(chosen.trim()) ? ConditionOutcome.match("distlock.provider is " + name)
				: ConditionOutcome.noMatch("distlock.provider is " + chosen);
	}

}
