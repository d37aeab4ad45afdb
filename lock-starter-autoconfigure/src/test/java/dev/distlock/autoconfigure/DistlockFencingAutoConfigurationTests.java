package dev.distlock.autoconfigure;

import dev.distlock.fencing.JdbcFencing;
import dev.distlock.fencing.MetricsFencingListener;
import dev.distlock.fencing.RedisFencing;
import dev.distlock.fencing.StaleFencingTokenException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link DistlockFencingAutoConfiguration}.
 */
class DistlockFencingAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				JdbcClientAutoConfiguration.class, DistlockFencingAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:fencing-autoconfig;DB_CLOSE_DELAY=-1");

	@Test
	void runWithJdbcClientAndMeterRegistryShouldCountRefusals() {
		this.contextRunner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(JdbcFencing.class)
				.hasSingleBean(MetricsFencingListener.class)
				.doesNotHaveBean(RedisFencing.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE account (id INT PRIMARY KEY, balance INT, fencing_token BIGINT)");
			jdbc.update("INSERT INTO account (id, balance, fencing_token) VALUES (1, 0, 10)");
			JdbcFencing fencing = context.getBean(JdbcFencing.class);
			assertThatExceptionOfType(StaleFencingTokenException.class)
				.isThrownBy(() -> fencing.update("account").set("balance", 1).where("id", 1).execute(9L));
			assertThat(context.getBean(MeterRegistry.class).get(MetricsFencingListener.REJECTED).counter().count())
				.isEqualTo(1.0);
		});
	}

	@Test
	void runWithStringRedisTemplateShouldCreateRedisFencing() {
		this.contextRunner
			.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(new LettuceConnectionFactory()))
			.run((context) -> assertThat(context).hasSingleBean(RedisFencing.class));
	}

	@Test
	void runWithoutSpringJdbcShouldNotCreateJdbcFencing() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistlockFencingAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(JdbcTemplate.class.getPackageName() + ".simple"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcFencing.class));
	}

	@Test
	void runWithUserJdbcFencingShouldBackOff() {
		this.contextRunner.withBean("myFencing", JdbcFencing.class, () -> new JdbcFencing(new JdbcTemplate()))
			.run((context) -> assertThat(context).hasSingleBean(JdbcFencing.class).hasBean("myFencing"));
	}

}
