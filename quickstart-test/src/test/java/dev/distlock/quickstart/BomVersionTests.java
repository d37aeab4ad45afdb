package dev.distlock.quickstart;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The BOM has no parent (an imported BOM must not bring Spring Boot's versions), so it
 * repeats the versions the build uses; these tests keep the two in step.
 */
class BomVersionTests {

	private static final Pattern PROPERTY = Pattern.compile("<([a-z.-]+\\.version)>([^<]+)</\\1>");

	private static final Pattern PROJECT_VERSION = Pattern
		.compile("<artifactId>(distlock-parent|distlock-bom)</artifactId>\\s*<version>([^<]+)</version>");

	@Test
	void bomManagesTheClientVersionsTheBuildUses() throws Exception {
		Map<String, String> build = properties(read("../pom.xml"));
		Map<String, String> bom = properties(read("../distlock-bom/pom.xml"));
		assertThat(bom).containsKeys("redisson.version", "curator.version", "jetcd.version", "shedlock.version",
				"zookeeper.version");
		bom.forEach((name, version) -> {
			if (build.containsKey(name)) {
				assertThat(version).as("%s in distlock-bom/pom.xml against pom.xml", name).isEqualTo(build.get(name));
			}
		});
	}

	@Test
	void bomManagesThisBuildsVersionOfDistlock() throws Exception {
		String parent = projectVersion(read("../pom.xml"));
		String bomPom = read("../distlock-bom/pom.xml");
		assertThat(projectVersion(bomPom)).isEqualTo(parent);
		assertThat(properties(bomPom)).containsEntry("distlock.version", parent);
	}

	@Test
	void bomManagesEveryPublishedModule() throws Exception {
		String bomPom = read("../distlock-bom/pom.xml");
		for (String module : new String[] { "lock-starter", "lock-starter-autoconfigure", "lock-starter-test",
				"lock-starter-shedlock", "lock-starter-kotlin" }) {
			assertThat(Files.isDirectory(Path.of("..", module))).as("module %s exists", module).isTrue();
			assertThat(bomPom).as("distlock-bom manages %s", module)
				.contains("<artifactId>" + module + "</artifactId>\n        <version>${distlock.version}</version>");
		}
	}

	private static String read(String path) throws Exception {
		return Files.readString(Path.of(path));
	}

	private static Map<String, String> properties(String pom) {
		Map<String, String> properties = new TreeMap<>();
		Matcher matcher = PROPERTY.matcher(pom);
		while (matcher.find()) {
			properties.put(matcher.group(1), matcher.group(2).trim());
		}
		return properties;
	}

	private static String projectVersion(String pom) {
		Matcher matcher = PROJECT_VERSION.matcher(pom);
		assertThat(matcher.find()).as("project version in a pom").isTrue();
		return matcher.group(2);
	}

}
