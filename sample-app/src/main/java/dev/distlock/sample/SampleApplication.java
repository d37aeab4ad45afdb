package dev.distlock.sample;

import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.SimpleCommandLinePropertySource;

/**
 * The distlock sample application. Started plainly it serves the HTTP endpoints of its
 * services on port 8080 (start a second instance with {@code --server.port=8081}: they
 * share locks and data). Started with {@code --sample.demo.ops=N} it runs the contention
 * demo instead, prints its table and exits.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		ConfigurableApplicationContext context = application(args).run(args);
		if (isDemo(args)) {
			// the demo's runner reports violations as a non-zero exit code
			System.exit(SpringApplication.exit(context));
		}
	}

	static SpringApplication application(String... args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		if (isDemo(args)) {
			// the demo needs no web server, and must not clash with an instance already
			// serving on 8080; no job or leader election should run while it measures,
			// and its table should not drown in log lines (arguments still win)
			application.setWebApplicationType(WebApplicationType.NONE);
			application.setDefaultProperties(Map.of("sample.scheduling.enabled", "false", "distlock.leader.enabled",
					"false", "logging.level.root", "warn"));
		}
		return application;
	}

	static boolean isDemo(String... args) {
		return new SimpleCommandLinePropertySource(args).containsProperty("sample.demo.ops");
	}

}
