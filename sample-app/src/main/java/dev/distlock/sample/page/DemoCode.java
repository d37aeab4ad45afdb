package dev.distlock.sample.page;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.core.io.ClassPathResource;
import org.springframework.stereotype.Component;

/**
 * The code behind each demo, as the page shows it: the tagged regions ({@code tag::x[]}
 * to {@code end::x[]}) of the sample's own files. The build copies the Java sources onto
 * the class path under {@value #SOURCES} (see the module's {@code pom.xml}), so the page
 * shows the code the application was built from; resources such as
 * {@code application.yml} are read where they are.
 */
@Component
public class DemoCode {

	/** Where the build puts the sample's Java sources on the class path. */
	static final String SOURCES = "sample-source/";

	private final Map<Demo.Snippet, String> cache = new ConcurrentHashMap<>();

	/**
	 * One snippet's text.
	 * @param snippet the snippet
	 * @return its lines, without the tag comments and without their common indentation
	 * @throws IllegalStateException if the file or the tag is missing
	 */
	public String text(Demo.Snippet snippet) {
		return this.cache.computeIfAbsent(snippet, (each) -> extract(read(each), each));
	}

	/**
	 * The snippets of a demo.
	 * @param demo the demo
	 * @return its code, file by file
	 */
	public List<Code> code(Demo demo) {
		return demo.code().stream().map((snippet) -> new Code(fileName(snippet), text(snippet))).toList();
	}

	/**
	 * The tagged region of a file's text.
	 * @param source the file's text
	 * @param snippet what to take
	 * @return the region's lines, without the tag comments and their common indentation
	 */
	static String extract(String source, Demo.Snippet snippet) {
		String start = "tag::" + snippet.tag() + "[]";
		String end = "end::" + snippet.tag() + "[]";
		List<String> lines = new ArrayList<>();
		boolean inside = false;
		boolean found = false;
		for (String line : source.split("\r?\n", -1)) {
			if (line.contains(start)) {
				inside = true;
				found = true;
			}
			else if (line.contains(end)) {
				inside = false;
			}
			else if (inside && !line.contains("tag::") && !line.contains("end::")) {
				lines.add(line.replace("\t", "    "));
			}
		}
		if (!found || lines.isEmpty()) {
			throw new IllegalStateException("No region tagged '" + snippet.tag() + "' in " + snippet.file());
		}
		int indent = lines.stream()
			.filter((line) -> !line.isBlank())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		StringBuilder text = new StringBuilder();
		for (String line : lines) {
			text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
		}
		return text.toString();
	}

	private static String read(Demo.Snippet snippet) {
		ClassPathResource resource = new ClassPathResource((snippet.isJava() ? SOURCES : "") + snippet.file());
		try (InputStream in = resource.getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The page's code panel needs " + resource
					+ " on the class path (the build copies the sources there)", ex);
		}
	}

	private static String fileName(Demo.Snippet snippet) {
		return snippet.isJava() ? "src/main/java/" + snippet.file() : "src/main/resources/" + snippet.file();
	}

	/**
	 * One file's part of a demo's code.
	 *
	 * @param file the file, relative to the module
	 * @param text the snippet
	 */
	public record Code(String file, String text) {
	}

}
