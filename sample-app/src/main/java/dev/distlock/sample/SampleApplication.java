package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The distlock sample application. Started plainly it serves the HTTP endpoints of its services on port 8080 (start a
 * second instance with {@code --server.port=8081}: they share locks and data). Started with
 * {@code --distlock.demo.ops=N} it runs the contention demo instead, prints its table and exits.
 */
@SpringBootApplication
@EnableScheduling
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
			// the demo needs no web server, and must not clash with an instance already serving on 8080
			application.setWebApplicationType(WebApplicationType.NONE);
		}
		return application;
	}

	static boolean isDemo(String... args) {
		return new SimpleCommandLinePropertySource(args).containsProperty("distlock.demo.ops");
	}

}
