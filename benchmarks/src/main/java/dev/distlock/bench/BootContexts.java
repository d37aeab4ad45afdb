package dev.distlock.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the Spring Boot applications that the library subjects (distlock, lock4j) run
 * in, with auto-configuration as a user gets it. One classpath holds every library, so
 * each application excludes the auto-configurations of the others (distlock and lock4j
 * both name a bean {@code lockTemplate}), and applications without a database exclude
 * Boot's DataSource auto-configurations.
 */
final class BootContexts {

	private BootContexts() {
	}

	static ConfigurableApplicationContext start(Map<String, Object> properties, Predicate<String> excluded,
			Class<?>... sources) {
		List<String> exclusions = ImportCandidates.load(AutoConfiguration.class, BootContexts.class.getClassLoader())
			.getCandidates()
			.stream()
			.filter(excluded)
			.toList();
		Map<String, Object> defaults = new LinkedHashMap<>();
		defaults.put("logging.level.root", "WARN");
		defaults.put("spring.autoconfigure.exclude", String.join(",", exclusions));
		defaults.putAll(properties);
		SpringApplication application = new SpringApplication(sources);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setBannerMode(Banner.Mode.OFF);
		application.setLogStartupInfo(false);
		application.setRegisterShutdownHook(false);
		application.setDefaultProperties(defaults);
		return application.run();
	}

	static boolean isLock4j(String autoConfiguration) {
		return autoConfiguration.startsWith("com.baomidou.");
	}

	static boolean isDistlock(String autoConfiguration) {
		return autoConfiguration.startsWith("dev.distlock.");
	}

	/**
	 * Boot's DataSource auto-configurations, which fail without
	 * {@code spring.datasource.url}.
	 */
	static boolean isJdbc(String autoConfiguration) {
		return autoConfiguration.startsWith("org.springframework.boot.jdbc.");
	}

}
