package dev.distlock.sample;

import dev.distlock.sample.demo.ContentionDemo;
import dev.distlock.sample.demo.DemoRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contention demo as documented:
 * {@code --sample.demo.threads=8 --sample.demo.ops=2000} on the default configuration
 * starts no web server, prints the table, keeps the counter exact and exits with 0.
 */
@ExtendWith(OutputCaptureExtension.class)
class DemoCommandLineTests {

	@Test
	void demoFromTheCommandLineKeepsTheCounterExact(CapturedOutput output) {
		String[] args = { "--sample.demo.threads=8", "--sample.demo.ops=2000",
				"--spring.datasource.url=" + TestDatabases.h2Url(), "--sample.report-job.initial-delay=1h" };
		assertThat(SampleApplication.isDemo(args)).isTrue();
		try (ConfigurableApplicationContext context = SampleApplication.application(args).run(args)) {
			assertThat(context).isNotInstanceOf(WebServerApplicationContext.class);
			ContentionDemo.DemoResult result = context.getBean(DemoRunner.class).result();
			assertThat(result).isNotNull();
			assertThat(result.violations()).as("demo: %s", result).isZero();
			assertThat(result.failed()).isZero();
			assertThat(result.counter()).isEqualTo(2000);
			assertThat(result.threads()).isEqualTo(8);
			assertThat(SpringApplication.exit(context)).as("exit code").isZero();
		}
		assertThat(output).contains("wait p50", "violations", "counter equals ops - failed (2000): the lock held");
	}

}
