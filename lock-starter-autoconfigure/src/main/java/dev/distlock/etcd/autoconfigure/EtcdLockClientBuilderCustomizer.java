package dev.distlock.etcd.autoconfigure;

import io.etcd.jetcd.ClientBuilder;

/**
 * Callback that customizes the jetcd {@link ClientBuilder} of the client distlock creates
 * from {@code distlock.etcd.endpoints} (TLS through {@code sslContext}, authority,
 * retries, interceptors), after {@code distlock.etcd.*} has been applied. Not used when
 * the application has its own {@code Client}. Beans of this type are applied in their
 * {@link org.springframework.core.annotation.Order order}.
 *
 * @since 0.3.0
 */
@FunctionalInterface
public interface EtcdLockClientBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder to customize
	 */
	void customize(ClientBuilder builder);

}
