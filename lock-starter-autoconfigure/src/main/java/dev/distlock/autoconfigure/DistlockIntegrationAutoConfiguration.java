package dev.distlock.autoconfigure;

import dev.distlock.core.LockTemplate;
import dev.distlock.integration.DistlockLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} on distlock ({@link DistlockLockRegistry})
 * when Spring Integration is on the classpath, so its aggregators,
 * {@code LockRegistryLeaderInitiator} and {@code executeLocked} lock through the
 * {@link LockTemplate}; it backs off when the application defines a lock registry of its
 * own.
 *
 * @since 0.3.0
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(LockTemplate.class)
public final class DistlockIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	DistlockLockRegistry distlockLockRegistry(LockTemplate lockTemplate) {
		return new DistlockLockRegistry(lockTemplate);
	}

}
