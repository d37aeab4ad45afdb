package dev.distlock.etcd.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.distlock.autoconfigure.ConditionalOnLockProvider;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.etcd.EtcdLatchProvider;
import dev.distlock.etcd.EtcdLockProvider;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The etcd backend: an {@link EtcdLockProvider} named {@code etcd} (and an
 * {@link EtcdLatchProvider} beside it unless {@code distlock.latch.enabled=false}) on the
 * application's jetcd {@link Client} bean, or on a client that distlock creates and
 * closes from {@code distlock.etcd.endpoints} when there is none. Needs
 * {@code io.etcd:jetcd-core} on the class path.
 *
 * @since 0.3.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class)
@ConditionalOnClass(Client.class)
@ConditionalOnLockProvider("etcd")
@EnableConfigurationProperties({ EtcdLockProperties.class, DistlockProperties.class })
@Import({ EtcdLockAutoConfiguration.ClientConfiguration.class, EtcdLockAutoConfiguration.ProviderConfiguration.class })
public final class EtcdLockAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(Client.class)
	@Conditional(EndpointsCondition.class)
	static class ClientConfiguration {

		@Bean(destroyMethod = "close")
		Client distlockEtcdClient(EtcdLockProperties properties,
				ObjectProvider<EtcdLockClientBuilderCustomizer> customizers) {
			if (properties.getEndpoints().isEmpty()) {
				throw new LockConfigurationException("distlock.etcd.endpoints must name at least one etcd client URL");
			}
			if (properties.getConnectTimeout().isNegative() || properties.getConnectTimeout().isZero()) {
				throw new LockConfigurationException(
						"distlock.etcd.connect-timeout must be positive, was " + properties.getConnectTimeout());
			}
			ClientBuilder builder = Client.builder()
				.endpoints(properties.getEndpoints().toArray(String[]::new))
				.connectTimeout(properties.getConnectTimeout());
			if (properties.getUsername() != null) {
				builder.user(bytes(properties.getUsername()));
				builder.password(bytes((properties.getPassword() != null) ? properties.getPassword() : ""));
			}
			customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
			return builder.build();
		}

		private static ByteSequence bytes(String value) {
			return ByteSequence.from(value, StandardCharsets.UTF_8);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(ClientAvailableCondition.class)
	static class ProviderConfiguration {

		@Bean
		@ConditionalOnMissingBean
		EtcdLockProvider etcdLockProvider(Client client, EtcdLockProperties properties, DistlockProperties distlock) {
			return EtcdLockProvider.builder(client)
				.root(properties.getRoot())
				.callTimeout(distlock.getCallTimeout())
				.build();
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty(name = "distlock.latch.enabled", matchIfMissing = true)
		EtcdLatchProvider etcdLatchProvider(Client client, EtcdLockProperties properties, DistlockProperties distlock) {
			return new EtcdLatchProvider(client, properties.getRoot(), distlock.getCallTimeout());
		}

	}

	/**
	 * A client to lock with: the application's own, or distlock's from the endpoints.
	 * Judged on the property rather than on distlock's client bean, whose registration
	 * may come after this condition is evaluated.
	 */
	static class ClientAvailableCondition extends AnyNestedCondition {

		ClientAvailableCondition() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnSingleCandidate(Client.class)
		static class ApplicationClient {

		}

		@Conditional(EndpointsCondition.class)
		static class Endpoints {

		}

	}

	/**
	 * Whether {@code distlock.etcd.endpoints} is set, as a comma-separated value or as a
	 * list (which {@code @ConditionalOnProperty} does not see in YAML).
	 */
	static class EndpointsCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionMessage.Builder message = ConditionMessage.forCondition("distlock.etcd.endpoints");
			List<String> endpoints = Binder.get(context.getEnvironment())
				.bind("distlock.etcd.endpoints", Bindable.listOf(String.class))
				.orElse(List.of());
			return endpoints.isEmpty() ? ConditionOutcome.noMatch(message.because("not set"))
					: ConditionOutcome.match(message.because("set to " + endpoints));
		}

	}

}
