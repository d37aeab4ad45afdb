package dev.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layout of the auto-configuration: the top package holds what is not one backend's,
 * each backend's wiring sits in {@code dev.distlock.<backend>.autoconfigure}, and the top
 * package refers to none of those (the latch configurations it imports are named, not
 * referenced), so the dependencies point one way.
 */
class AutoconfigurePackagesTests {

	private static final List<String> BACKENDS = List.of("redis", "redisson", "jdbc", "zookeeper", "etcd");

	/** Where the library's classes are, apart from the tests'. */
	private static final String MAIN_CLASSES = DistlockAutoConfiguration.class.getProtectionDomain()
		.getCodeSource()
		.getLocation()
		.toString();

	private final PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();

	@Test
	void topPackageHoldsAtMostSixteenTypesBesideItsPackageInfo() throws IOException {
		assertThat(topLevelClasses("dev/distlock/autoconfigure")).hasSizeLessThanOrEqualTo(16)
			.noneMatch((name) -> BACKENDS.stream()
				.anyMatch((backend) -> name.toLowerCase().startsWith(backend.replace("zookeeper", "zoo"))));
	}

	@Test
	void eachBackendsAutoConfigurationLivesInItsOwnPackage() throws IOException {
		for (String backend : BACKENDS) {
			assertThat(topLevelClasses("dev/distlock/" + backend + "/autoconfigure")).as(backend)
				.anyMatch((name) -> name.endsWith("LockAutoConfiguration"))
				.anyMatch((name) -> name.endsWith("LockProperties"));
		}
	}

	@Test
	void topPackageReferencesNoBackendAutoConfigurationPackage() throws IOException {
		for (Resource resource : this.resolver.getResources(MAIN_CLASSES + "dev/distlock/autoconfigure/*.class")) {
			String bytes;
			try (InputStream in = resource.getInputStream()) {
				bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
			}
			for (String backend : BACKENDS) {
				assertThat(bytes).as("%s refers to dev.distlock.%s.autoconfigure", resource.getFilename(), backend)
					.doesNotContain("dev/distlock/" + backend + "/autoconfigure/");
			}
		}
	}

	private List<String> topLevelClasses(String path) throws IOException {
		List<String> names = new ArrayList<>();
		for (Resource resource : this.resolver.getResources(MAIN_CLASSES + path + "/*.class")) {
			String name = resource.getFilename();
			if (name != null && !name.contains("$") && !name.equals("package-info.class")) {
				names.add(name.substring(0, name.length() - ".class".length()));
			}
		}
		return names;
	}

}
