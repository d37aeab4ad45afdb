package dev.distlock.autoconfigure;

import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The condition behind {@link ConditionalOnLockProvider}. Properties are read through a
 * {@link Binder}, so relaxed names apply: {@code DISTLOCK_PROVIDER=local} or
 * {@code DISTLOCK_REDIS_ENABLED=false} in the environment work as
 * {@code distlock.provider} and {@code distlock.redis.enabled} do.
 */
class OnLockProviderCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLockProvider.class.getName());
		String name = (String) attributes.get("value");
		boolean explicitOnly = (Boolean) attributes.get("explicitOnly");
		ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnLockProvider.class,
				"'" + name + "'");
		Binder binder = Binder.get(context.getEnvironment());
		String enabledProperty = "distlock." + name + ".enabled";
		Boolean enabled = binder.bind(enabledProperty, Boolean.class).orElse(null);
		if (enabled != null) {
			return new ConditionOutcome(enabled, message.because(enabledProperty + " is " + enabled));
		}
		String chosen = binder.bind("distlock.provider", String.class).map(String::trim).orElse("");
		if (chosen.isEmpty()) {
			return explicitOnly
					? ConditionOutcome.noMatch(
							message.because("distlock.provider is not set and '" + name + "' is only used when chosen"))
					: ConditionOutcome.match(message.because("distlock.provider is not set"));
		}
		return new ConditionOutcome(name.equalsIgnoreCase(chosen), message.because("distlock.provider is " + chosen));
	}

}
