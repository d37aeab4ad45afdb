package dev.distlock.autoconfigure;

import java.util.List;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.local.LocalLockProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * The core of distlock: {@link LockTemplate} over every {@link LockProvider} bean, the
 * shared {@link LeaseRenewer}, and the in-JVM {@code local} provider when chosen. Backend
 * auto-configurations run before this one and contribute {@link LockProvider} beans; the
 * default one is {@code distlock.provider}, or the only one there is. None, or several
 * without a choice, fail at startup with a message saying what to set. With spring-aop
 * present (lock-starter brings it), {@code @DistributedLock} methods are applied by an
 * advisor ({@code distlock.aop.*}).
 *
 * @since 0.1.0
 */
@AutoConfiguration
@EnableConfigurationProperties(DistlockProperties.class)
@Import({ DistlockAutoConfiguration.LocalProviderConfiguration.class, DistributedLockConfiguration.class })
@ImportRuntimeHints(DistlockRuntimeHints.class)
public final class DistlockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockSettings distlockSettings(DistlockProperties properties) {
		return properties.toSettings();
	}

	@Bean
	@ConditionalOnMissingBean
	LockTemplate lockTemplate(ObjectProvider<LockProvider<?>> providers, DistlockProperties properties,
			LockSettings settings, ObjectProvider<LockListener> listeners) {
		List<LockProvider<?>> available = providers.orderedStream().toList();
		return new LockTemplate(available, chooseDefault(properties.getProvider(), available), settings,
				listeners.orderedStream().toList());
	}

	static String chooseDefault(@org.jspecify.annotations.Nullable String configured, List<LockProvider<?>> available) {
		List<String> names = available.stream().map(LockProvider::name).toList();
		if (configured != null && !configured.isBlank()) {
			if (!names.contains(configured.trim())) {
				throw new LockConfigurationException("distlock.provider is '" + configured
						+ "' but no such lock provider is available (available: " + names + "). Check the name, "
						+ "add the backend's client library, and configure its connection (a RedisConnectionFactory, "
						+ "RedissonClient, DataSource, distlock.zookeeper.connect-string or distlock.etcd.endpoints)");
			}
			return configured.trim();
		}
		if (names.isEmpty()) {
			throw new LockConfigurationException("No lock provider is available. Add a backend (spring-boot-starter-"
					+ "data-redis, redisson, a DataSource, curator-recipes with distlock.zookeeper.connect-string, or "
					+ "jetcd-core with distlock.etcd.endpoints), or set distlock.provider=local for in-JVM locks");
		}
		if (names.size() > 1) {
			throw new LockConfigurationException("Several lock providers are available " + names
					+ "; set distlock.provider to the one locks should use by default");
		}
		return names.get(0);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnLockProvider(value = "local", explicitOnly = true)
	static class LocalProviderConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LocalLockProvider localLockProvider() {
			return new LocalLockProvider();
		}

	}

}
