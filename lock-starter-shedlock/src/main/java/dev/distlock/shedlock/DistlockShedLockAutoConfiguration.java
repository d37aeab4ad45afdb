package dev.distlock.shedlock;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockTemplate;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.util.StringUtils;

/**
 * A ShedLock {@link LockProvider} on distlock ({@link DistlockLockProvider}), so
 * {@code @SchedulerLock} methods and ShedLock's {@code LockingTaskExecutor} lock through
 * the {@link LockTemplate}, on the backend {@code distlock.shedlock.provider} names (by
 * default the template's default provider). It backs off when the application defines a
 * ShedLock {@code LockProvider} of its own, and with
 * {@code distlock.shedlock.enabled=false}. A provider name the template does not know
 * fails the startup.
 *
 * @since 0.7.0
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class,
		afterName = { "dev.distlock.redis.autoconfigure.RedisLockAutoConfiguration",
				"dev.distlock.redisson.autoconfigure.RedissonLockAutoConfiguration",
				"dev.distlock.jdbc.autoconfigure.JdbcLockAutoConfiguration",
				"dev.distlock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration",
				"dev.distlock.etcd.autoconfigure.EtcdLockAutoConfiguration" })
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(LockTemplate.class)
@ConditionalOnBooleanProperty(name = "distlock.shedlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistlockShedLockProperties.class)
public final class DistlockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	DistlockLockProvider distlockShedLockProvider(LockTemplate lockTemplate, DistlockShedLockProperties properties) {
		String provider = StringUtils.hasText(properties.getProvider()) ? properties.getProvider().trim() : null;
		if (provider != null && !lockTemplate.providers().containsKey(provider)) {
			throw new LockConfigurationException("distlock.shedlock.provider is '" + provider
					+ "' but the lock template has no such lock provider (available: "
					+ lockTemplate.providers().keySet() + "); unset it to lock on distlock.provider's backend");
		}
		return new DistlockLockProvider(lockTemplate, provider);
	}

}
