package dev.distlock.zookeeper.autoconfigure;

import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * Callback that customizes the {@link CuratorFrameworkFactory.Builder} of the Curator
 * client distlock creates from {@code distlock.zookeeper.connect-string} (authorization,
 * ACLs, a namespace, another retry policy), after {@code distlock.zookeeper.*} has been
 * applied. Not used when the application has its own {@code CuratorFramework}. Beans of
 * this type are applied in their {@link org.springframework.core.annotation.Order order}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ZooKeeperLockClientBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder to customize
	 */
	void customize(CuratorFrameworkFactory.Builder builder);

}
