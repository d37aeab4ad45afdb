package dev.distlock.quickstart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's quick start is the project under src/it/quickstart, word for word, so the
 * project the build runs is the one a reader copies.
 */
class ReadmeQuickStartTests {

	private static final Pattern BLOCK = Pattern.compile("```(?:java|yaml)\\n(.*?)```", Pattern.DOTALL);

	private static final Path PROJECT = Path.of("src/it/quickstart");

	@Test
	void readmeShowsTheQuickStartProjectsService() throws IOException {
		assertThat(readmeBlocks()).as("a README block is the project's ShippingService")
			.contains(withoutPackage(PROJECT.resolve("src/main/java/com/example/shipping/ShippingService.java")));
	}

	@Test
	void readmeShowsTheQuickStartProjectsTest() throws IOException {
		assertThat(readmeBlocks()).as("a README block is the project's ShippingServiceTests")
			.contains(withoutPackage(PROJECT.resolve("src/test/java/com/example/shipping/ShippingServiceTests.java")));
	}

	@Test
	void readmeShowsTheQuickStartProjectsConfiguration() throws IOException {
		assertThat(readmeBlocks()).as("a README block is the project's application.yml")
			.contains(Files.readString(PROJECT.resolve("src/main/resources/application.yml")));
	}

	private static List<String> readmeBlocks() throws IOException {
		Matcher matcher = BLOCK.matcher(Files.readString(Path.of("../README.md")));
		List<String> blocks = new ArrayList<>();
		while (matcher.find()) {
			blocks.add(matcher.group(1));
		}
		return blocks;
	}

	private static String withoutPackage(Path source) throws IOException {
		return Files.readString(source).replaceFirst("\\Apackage [\\w.]+;\\n\\n", "");
	}

}
