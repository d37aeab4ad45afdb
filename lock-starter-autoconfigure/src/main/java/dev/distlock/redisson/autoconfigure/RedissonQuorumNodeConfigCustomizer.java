package dev.distlock.redisson.autoconfigure;

import org.redisson.config.Config;

/**
 * Callback that customizes the Redisson {@link Config} of each node client the
 * {@code redisson-quorum} backend creates (TLS, credentials, codecs, pool sizes), after
 * {@code distlock.redisson.*} has been applied. The config already uses a single server,
 * the node's address. Beans of this type are applied in their
 * {@link org.springframework.core.annotation.Order order}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RedissonQuorumNodeConfigCustomizer {

	/**
	 * Customizes the config of one node's client.
	 * @param config the config to customize
	 */
	void customize(Config config);

}
