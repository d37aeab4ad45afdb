package dev.distlock.zookeeper.autoconfigure;

import java.time.Duration;

import dev.distlock.autoconfigure.ConditionalOnLockProvider;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The ZooKeeper backend: a {@link ZooKeeperLockProvider} named {@code zookeeper} on the
 * application's {@link CuratorFramework} bean, or on a client that distlock creates,
 * starts and closes from {@code distlock.zookeeper.connect-string} when there is none.
 * Needs {@code curator-recipes} on the class path.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class,
		afterName = "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration")
@ConditionalOnClass(CuratorFramework.class)
@ConditionalOnLockProvider("zookeeper")
@EnableConfigurationProperties({ ZooKeeperLockProperties.class, DistlockProperties.class })
@Import({ ZooKeeperLockAutoConfiguration.ClientConfiguration.class,
		ZooKeeperLockAutoConfiguration.ProviderConfiguration.class })
public final class ZooKeeperLockAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(CuratorFramework.class)
	@ConditionalOnProperty(prefix = "distlock.zookeeper", name = "connect-string")
	static class ClientConfiguration {

		@Bean(destroyMethod = "close")
		CuratorFramework distlockCuratorFramework(ZooKeeperLockProperties properties,
				ObjectProvider<ZooKeeperLockClientBuilderCustomizer> customizers) {
			ZooKeeperLockProperties.Retry retry = properties.getRetry();
			CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
				.connectString(properties.getConnectString())
				.sessionTimeoutMs(millis("session-timeout", properties.getSessionTimeout()))
				.connectionTimeoutMs(millis("connection-timeout", properties.getConnectionTimeout()))
				.retryPolicy(new ExponentialBackoffRetry(millis("retry.base-sleep", retry.getBaseSleep()),
						retry.getMaxRetries(), millis("retry.max-sleep", retry.getMaxSleep())));
			customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
			CuratorFramework client = builder.build();
			client.start();
			return client;
		}

		private static int millis(String name, Duration value) {
			if (value.isNegative() || value.isZero() || value.toMillis() > Integer.MAX_VALUE) {
				throw new LockConfigurationException(
						"distlock.zookeeper." + name + " must be positive and below 24 days, was " + value);
			}
			return (int) value.toMillis();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(ClientAvailableCondition.class)
	static class ProviderConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ZooKeeperLockProvider zooKeeperLockProvider(CuratorFramework client, ZooKeeperLockProperties properties,
				DistlockProperties distlock) {
			return ZooKeeperLockProvider.builder(client)
				.basePath(properties.getBasePath())
				.callTimeout(distlock.getCallTimeout())
				.build();
		}

	}

	/**
	 * A client to lock with: the application's own, or distlock's from the connect
	 * string. Judged on the property rather than on distlock's client bean, whose
	 * registration may come after this condition is evaluated.
	 */
	static class ClientAvailableCondition extends AnyNestedCondition {

		ClientAvailableCondition() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnSingleCandidate(CuratorFramework.class)
		static class ApplicationClient {

		}

		@ConditionalOnProperty(prefix = "distlock.zookeeper", name = "connect-string")
		static class ConnectString {

		}

	}

}
