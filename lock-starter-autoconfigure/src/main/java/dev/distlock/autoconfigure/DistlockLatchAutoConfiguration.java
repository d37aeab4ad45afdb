package dev.distlock.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import dev.distlock.core.LatchTemplate;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LatchProvider;
import dev.distlock.jdbc.JdbcLatchProvider;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.local.LocalLatchProvider;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.redis.RedisLatchProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redisson.RedissonLatchProvider;
import dev.distlock.redisson.RedissonLockProvider;
import dev.distlock.zookeeper.ZooKeeperLatchProvider;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

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
@AutoConfiguration(after = { DistlockAutoConfiguration.class, RedisLockAutoConfiguration.class,
		RedissonLockAutoConfiguration.class, JdbcLockAutoConfiguration.class, ZooKeeperLockAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "distlock.latch.enabled", matchIfMissing = true)
@ConditionalOnBean(LockTemplate.class)
@EnableConfigurationProperties(DistlockLatchProperties.class)
@Import({ DistlockLatchAutoConfiguration.LocalLatchConfiguration.class,
		DistlockLatchAutoConfiguration.RedisLatchConfiguration.class,
		DistlockLatchAutoConfiguration.RedissonLatchConfiguration.class,
		DistlockLatchAutoConfiguration.JdbcLatchConfiguration.class,
		DistlockLatchAutoConfiguration.ZooKeeperLatchConfiguration.class })
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

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedisConnectionFactory.class)
	@ConditionalOnBean(RedisLockProvider.class)
	static class RedisLatchConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		RedisLatchProvider redisLatchProvider(RedisConnectionFactory connectionFactory) {
			return new RedisLatchProvider(connectionFactory);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedissonClient.class)
	@ConditionalOnBean(RedissonLockProvider.class)
	static class RedissonLatchConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedissonLatchProvider redissonLatchProvider(RedissonClient redissonClient) {
			return new RedissonLatchProvider(redissonClient);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(DataSource.class)
	@ConditionalOnBean(JdbcLockProvider.class)
	static class JdbcLatchConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		JdbcLatchProvider jdbcLatchProvider(@DistlockDataSource ObjectProvider<DataSource> distlockDataSource,
				ObjectProvider<DataSource> dataSource, JdbcLockProperties properties, LockTemplate lockTemplate) {
			return new JdbcLatchProvider(distlockDataSource.getIfAvailable(dataSource::getObject),
					properties.getTableName(), properties.getPlatform(), lockTemplate.settings().callTimeout());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(CuratorFramework.class)
	@ConditionalOnBean(ZooKeeperLockProvider.class)
	static class ZooKeeperLatchConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ZooKeeperLatchProvider zooKeeperLatchProvider(CuratorFramework client, ZooKeeperLockProperties properties) {
			return new ZooKeeperLatchProvider(client, properties.getBasePath());
		}

	}

}
