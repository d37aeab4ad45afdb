package dev.distlock.zookeeper.autoconfigure;

import dev.distlock.zookeeper.ZooKeeperLatchProvider;
import dev.distlock.zookeeper.ZooKeeperLockProvider;
import org.apache.curator.framework.CuratorFramework;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code zookeeper} latch on the lock provider's client and base path, imported by
 * {@code DistlockLatchAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(CuratorFramework.class)
@ConditionalOnBean(ZooKeeperLockProvider.class)
class ZooKeeperLatchConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ZooKeeperLatchProvider zooKeeperLatchProvider(CuratorFramework client, ZooKeeperLockProperties properties) {
		return new ZooKeeperLatchProvider(client, properties.getBasePath());
	}

}
