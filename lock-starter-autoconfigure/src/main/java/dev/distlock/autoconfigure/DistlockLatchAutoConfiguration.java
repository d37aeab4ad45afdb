package dev.distlock.autoconfigure;

import java.util.List;

import dev.distlock.core.LatchTemplate;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.local.LocalLatchProvider;
import dev.distlock.local.LocalLockProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Countdown latches beside the locks: a {@link LatchProvider} for every configured lock
 * backend that can hold one (local, redis, redisson, jdbc, zookeeper; etcd's comes with
 * its lock provider; not {@code redisson-quorum}), on the same client, and a
 * {@link LatchTemplate} over the one named by {@code distlock.latch.provider}, else the
 * default lock provider's, else the only one. {@code distlock.latch.enabled=false} turns
 * it off.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.latch.enabled", matchIfMissing = true)
@ConditionalOnBean(LockTemplate.class)
@EnableConfigurationProperties(DistlockLatchProperties.class)
@Import({ DistlockLatchAutoConfiguration.LocalLatchConfiguration.class,
		DistlockLatchAutoConfiguration.BackendLatchConfigurationsImportSelector.class })
public final class DistlockLatchAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LatchProvider.class)
	LatchTemplate latchTemplate(ObjectProvider<LatchProvider> providers, LockTemplate lockTemplate,
			DistlockLatchProperties properties) {
		LatchProvider provider = choose(properties.getProvider(), lockTemplate.defaultProvider().name(),
				providers.orderedStream().toList());
		return new LatchTemplate(provider, lockTemplate.settings(), properties.getExpiry());
	}

	static LatchProvider choose(@Nullable String configured, String defaultLockProvider,
			List<LatchProvider> available) {
		List<String> names = available.stream().map(LatchProvider::name).toList();
		String wanted = (configured != null && !configured.isBlank()) ? configured.trim() : null;
		for (LatchProvider provider : available) {
			if (provider.name().equals((wanted != null) ? wanted : defaultLockProvider)) {
				return provider;
			}
		}
		if (wanted != null) {
			throw new LockConfigurationException("distlock.latch.provider is '" + configured + "' but no such latch "
					+ "provider is available (available: " + names + "); latches live on local, redis, redisson, "
					+ "jdbc, zookeeper or etcd, on a backend configured for locks");
		}
		if (available.size() == 1) {
			return available.get(0);
		}
		throw new LockConfigurationException("Several latch providers are available " + names + " and none is the "
				+ "default lock provider '" + defaultLockProvider + "'; set distlock.latch.provider");
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(LocalLockProvider.class)
	static class LocalLatchConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LocalLatchProvider localLatchProvider() {
			return new LocalLatchProvider();
		}

	}

	/**
	 * Each backend's latch configuration, package-private in the backend's own
	 * {@code autoconfigure} package and guarded there by its client class and lock
	 * provider bean; named, not referenced, so that this package imports none of them.
	 */
	static class BackendLatchConfigurationsImportSelector implements ImportSelector {

		@Override
		public String[] selectImports(AnnotationMetadata importingClassMetadata) {
			return new String[] { "dev.distlock.redis.autoconfigure.RedisLatchConfiguration",
					"dev.distlock.redisson.autoconfigure.RedissonLatchConfiguration",
					"dev.distlock.jdbc.autoconfigure.JdbcLatchConfiguration",
					"dev.distlock.zookeeper.autoconfigure.ZooKeeperLatchConfiguration" };
		}

	}

}
