package dev.distlock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.jayway.jsonpath.JsonPath;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.DistributedLockAdvisor;
import dev.distlock.annotation.LockKeyResolver;
import dev.distlock.annotation.SpelLockKeyResolver;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.NamedLockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistlockAutoConfiguration}: provider selection and its failures, properties into
 * {@link LockSettings}, the {@code @DistributedLock} advisor and its back-off, user beans
 * winning, and the generated configuration metadata.
 */
@Timeout(60)
class DistlockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class));

	@Test
	void runWithLocalProviderShouldLockOnLocal() {
		this.contextRunner.withPropertyValues("distlock.provider=local").run((context) -> {
			assertThat(context).hasSingleBean(LocalLockProvider.class).hasSingleBean(LockTemplate.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			assertThat(template.defaultProvider().name()).isEqualTo("local");
			assertThat(template.execute("a", () -> LockContext.currentLease().key())).isEqualTo("a");
			assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
			assertThat(context.getBean(LockKeyResolver.class)).isInstanceOf(SpelLockKeyResolver.class);
		});
	}

	@Test
	void runWithoutProviderShouldFailSayingWhatToSet() {
		this.contextRunner.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.isInstanceOf(LockConfigurationException.class)
			.hasMessageContaining("No lock provider is available")
			.hasMessageContaining("distlock.provider=local"));
	}

	@Test
	void runWithUnknownProviderShouldFailNamingIt() {
		this.contextRunner.withPropertyValues("distlock.provider=nosuch")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.provider is 'nosuch'")
				.hasMessageContaining("available: []"));
	}

	@Test
	void runWithSeveralProvidersAndNoChoiceShouldFailListingThem() {
		this.contextRunner.withUserConfiguration(TwoProviders.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("[alpha, beta]")
				.hasMessageContaining("set distlock.provider"));
	}

	@Test
	void runWithSeveralProvidersShouldUseTheChosenOneAndLetAnnotationsPickAnother() {
		this.contextRunner.withUserConfiguration(TwoProviders.class)
			.withBean(OnBeta.class)
			.withPropertyValues("distlock.provider=alpha")
			.run((context) -> {
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaultProvider().name()).isEqualTo("alpha");
				assertThat(template.providers()).containsOnlyKeys("alpha", "beta");
				assertThat(context.getBean(OnBeta.class).lockedHere()).isEqualTo("beta");
			});
	}

	@Test
	void runWithPropertiesShouldBindThemIntoSettings() {
		this.contextRunner
			.withPropertyValues("distlock.provider=local", "distlock.key-prefix=app:", "distlock.default-lease=45s",
					"distlock.default-wait=250ms", "distlock.watchdog.lease=12s", "distlock.watchdog.interval=3s",
					"distlock.on-lease-lost=interrupt", "distlock.wait.min-backoff=2ms",
					"distlock.wait.max-backoff=80ms", "distlock.wait.fallback-poll=1s")
			.run((context) -> {
				LockSettings settings = context.getBean(LockTemplate.class).settings();
				assertThat(settings.keyPrefix()).isEqualTo("app:");
				assertThat(settings.defaultLease()).isEqualTo(Duration.ofSeconds(45));
				assertThat(settings.defaultWait()).isEqualTo(Duration.ofMillis(250));
				assertThat(settings.watchdogLease()).isEqualTo(Duration.ofSeconds(12));
				assertThat(settings.watchdogInterval()).isEqualTo(Duration.ofSeconds(3));
				assertThat(settings.onLeaseLost()).isEqualTo(LockSettings.LeaseLostAction.INTERRUPT);
				assertThat(settings.minBackoff()).isEqualTo(Duration.ofMillis(2));
				assertThat(settings.maxBackoff()).isEqualTo(Duration.ofMillis(80));
				assertThat(settings.fallbackPoll()).isEqualTo(Duration.ofSeconds(1));
			});
	}

	@Test
	void runWithDefaultsShouldRenewAtAThirdOfTheWatchdogLease() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.watchdog.lease=9s")
			.run((context) -> assertThat(context.getBean(LockSettings.class).watchdogInterval())
				.isEqualTo(Duration.ofSeconds(3)));
	}

	@Test
	void runWithNegativeDefaultWaitShouldFailAtStartup() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.default-wait=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.default-wait must not be negative"));
	}

	@Test
	void runWithRenewalIntervalNotBelowLeaseShouldFailAtStartup() {
		this.contextRunner
			.withPropertyValues("distlock.provider=local", "distlock.watchdog.lease=10s",
					"distlock.watchdog.interval=10s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining(
						"distlock.watchdog.interval (PT10S) must be shorter than " + "distlock.watchdog.lease"));
	}

	@Test
	void runWithZeroDefaultLeaseShouldFailAtStartup() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.default-lease=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("distlock.default-lease must be positive"));
	}

	@Test
	void runWithAnnotatedBeanShouldProxyIt() {
		this.contextRunner.withPropertyValues("distlock.provider=local").withBean(Annotated.class).run((context) -> {
			Annotated bean = context.getBean(Annotated.class);
			assertThat(AopUtils.isAopProxy(bean)).isTrue();
			assertThat(bean.locked()).isTrue();
		});
	}

	@Test
	void runWithoutBootsAopAutoConfigurationShouldStillProxy() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
			.withPropertyValues("distlock.provider=local")
			.withBean(Annotated.class)
			.run((context) -> {
				Annotated bean = context.getBean(Annotated.class);
				assertThat(AopUtils.isAopProxy(bean)).isTrue();
				assertThat(bean.locked()).isTrue();
			});
	}

	@Test
	void runWhenAopDisabledShouldNotCreateAdvisor() {
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.aop.enabled=false")
			.withBean(Annotated.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DistributedLockAdvisor.class)
					.doesNotHaveBean(LockKeyResolver.class)
					.hasSingleBean(LockTemplate.class);
				assertThat(context.getBean(Annotated.class).locked()).isFalse();
			});
	}

	@Test
	void runWithoutSpringAopShouldNotCreateAdvisor() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.aop", "org.aopalliance"))
			.withPropertyValues("distlock.provider=local")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(DistributedLockAdvisor.class)
					.doesNotHaveBean("distributedLockValidator")
					.hasSingleBean(LockTemplate.class);
				assertThat(context.getBean(LockTemplate.class).execute("k", () -> "ok")).isEqualTo("ok");
			});
	}

	@Test
	void runWithUserLockTemplateShouldUseIt() {
		this.contextRunner.withUserConfiguration(UserTemplate.class).withBean(Annotated.class).run((context) -> {
			assertThat(context).hasSingleBean(LockTemplate.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			assertThat(template).isSameAs(context.getBean(UserTemplate.class).template);
			assertThat(context.getBean(Annotated.class).locked()).isTrue();
			assertThat(template.settings().keyPrefix()).isEqualTo("lock:");
		});
	}

	@Test
	void runWithUserKeyResolverShouldUseIt() {
		this.contextRunner.withPropertyValues("distlock.provider=local")
			.withBean(LockKeyResolver.class, () -> (expression, method, targetClass) -> (target, args) -> "fixed")
			.withBean(KeyedByResolver.class)
			.run((context) -> assertThat(context.getBean(KeyedByResolver.class).key("anything")).isEqualTo("fixed"));
	}

	@Test
	void configurationMetadataDescribesTheProperties() throws Exception {
		Path metadata = Path.of("target/classes/META-INF/spring-configuration-metadata.json");
		assertThat(metadata).as("generated by spring-boot-configuration-processor").exists();
		String json = Files.readString(metadata);
		List<String> description = JsonPath.read(json,
				"$.properties[?(@.name == 'distlock.default-wait')].description");
		assertThat(description).singleElement().asString().contains("wait");
		List<Object> defaults = JsonPath.read(json, "$.properties[?(@.name == 'distlock.default-wait')].defaultValue");
		assertThat(defaults).containsExactly("10s");
		List<Object> order = JsonPath.read(json, "$.properties[?(@.name == 'distlock.aop.order')].defaultValue");
		assertThat(order).as("from additional-spring-configuration-metadata.json").containsExactly(2147483646);
		List<String> names = JsonPath.read(json, "$.properties[*].name");
		assertThat(names).contains("distlock.provider", "distlock.key-prefix", "distlock.default-lease",
				"distlock.watchdog.lease", "distlock.watchdog.interval", "distlock.on-lease-lost",
				"distlock.aop.enabled", "distlock.aop.order");
	}

	@Test
	void runWithProviderFromAnEnvironmentVariableShouldChooseIt() {
		this.contextRunner.withInitializer(environment(Map.of("DISTLOCK_PROVIDER", "local")))
			.run((context) -> assertThat(context.getBean(LockTemplate.class).defaultProvider().name())
				.isEqualTo("local"));
	}

	@Test
	void runWithBackendEnabledByAnEnvironmentVariableShouldAddItBesideTheDefault() {
		this.contextRunner.withUserConfiguration(TwoProviders.class)
			.withInitializer(environment(Map.of("DISTLOCK_PROVIDER", "alpha", "DISTLOCK_LOCAL_ENABLED", "true")))
			.run((context) -> assertThat(context.getBean(LockTemplate.class).providers()).containsOnlyKeys("alpha",
					"beta", "local"));
	}

	@Test
	void runWithBackendDisabledByAnEnvironmentVariableShouldNotRegisterIt() {
		this.contextRunner
			.withInitializer(environment(Map.of("DISTLOCK_PROVIDER", "local", "DISTLOCK_LOCAL_ENABLED", "false")))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distlock.provider is 'local' but no such lock provider is available"));
	}

	@Test
	void configurationMetadataListsEveryProviderAndGivesEveryPropertyADefaultOrAHint() throws Exception {
		String json = Files.readString(Path.of("target/classes/META-INF/spring-configuration-metadata.json"));
		List<String> providers = JsonPath.read(json, "$.hints[?(@.name == 'distlock.provider')].values[*].value");
		assertThat(providers).containsExactlyInAnyOrder("local", "redis", "redisson", "redisson-quorum", "jdbc",
				"zookeeper", "etcd");
		List<String> descriptions = JsonPath.read(json,
				"$.hints[?(@.name == 'distlock.provider')].values[*].description");
		assertThat(descriptions).hasSize(providers.size()).allSatisfy((text) -> assertThat(text).isNotBlank());
		List<Map<String, Object>> properties = JsonPath.read(json, "$.properties[*]");
		Set<String> hinted = Set.copyOf(JsonPath.<List<String>>read(json, "$.hints[*].name"));
		// a property removed (deprecation level "error") can no longer be set: it only
		// points to its replacement
		assertThat(properties).filteredOn((property) -> !isRemoved(property)).allSatisfy((property) -> {
			String name = (String) property.get("name");
			assertThat(property.containsKey("defaultValue") || hinted.contains(name))
				.as("%s has a default value or a hint", name)
				.isTrue();
			assertThat(property.get("description")).as("description of %s", name).isNotNull();
		});
		for (String provider : providers) {
			assertThat(properties).as("distlock.%s.enabled", provider)
				.anySatisfy(
						(property) -> assertThat(property.get("name")).isEqualTo("distlock." + provider + ".enabled"));
		}
	}

	@SuppressWarnings("unchecked")
	private static boolean isRemoved(Map<String, Object> property) {
		Object deprecation = property.get("deprecation");
		return deprecation instanceof Map && "error".equals(((Map<String, Object>) deprecation).get("level"));
	}

	private static ApplicationContextInitializer<ConfigurableApplicationContext> environment(
			Map<String, Object> variables) {
		return (context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment", variables));
	}

	@Test
	void runWithUserSettingsAndLocalProviderShouldUseThem() {
		LockSettings settings = LockSettings.defaults().withKeyPrefix("mine:");
		LocalLockProvider local = new LocalLockProvider();
		this.contextRunner.withPropertyValues("distlock.provider=local", "distlock.key-prefix=ignored:")
			.withBean(LockSettings.class, () -> settings)
			.withBean(LocalLockProvider.class, () -> local)
			.run((context) -> {
				assertThat(context).hasSingleBean(LockSettings.class).hasSingleBean(LocalLockProvider.class);
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.settings()).isSameAs(settings);
				assertThat(template.defaultProvider()).isSameAs(local);
			});
	}

	public static class Annotated {

		@DistributedLock(key = "'annotated'", waitTime = "0")
		public boolean locked() {
			return LockContext.findCurrentLease().isPresent();
		}

	}

	public static class KeyedByResolver {

		@DistributedLock(key = "#ignored")
		public String key(String ignored) {
			return LockContext.currentLease().key();
		}

	}

	public static class OnBeta {

		private final LockTemplate template;

		public OnBeta(LockTemplate template) {
			this.template = template;
		}

		@DistributedLock(provider = "beta", type = LockType.MUTEX)
		public String lockedHere() {
			// the lease does not name its provider; the template's snapshot does
			return this.template.activeLeases().get(0).provider();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoProviders {

		@Bean
		NamedLockProvider alpha() {
			return new NamedLockProvider("alpha", new LocalLockProvider());
		}

		@Bean
		NamedLockProvider beta() {
			return new NamedLockProvider("beta", new LocalLockProvider(), Set.of(LockType.MUTEX));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserTemplate {

		final LockTemplate template = new LockTemplate(new LocalLockProvider());

		@Bean
		LockTemplate userLockTemplate() {
			return this.template;
		}

	}

}
