package dev.distlock.sample.page;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The code panels are true to the code: every snippet the page shows is, line for line,
 * the tagged region of the file in {@code src/main/...} (so a build that copied stale
 * sources, or a tag that moved off the code a demo runs, fails here), and each demo's
 * code shows the distlock API the demo's text is about.
 */
class DemoCodeTests {

	private static final Map<Demo, String> API = Map.of(Demo.STOCK, "@DistributedLock(name = \"stock\"", Demo.FENCED,
			"this.fencing.update(\"account\")", Demo.TRANSFER, "key = \"{#from, #to}\"", Demo.CAR_PARK,
			"type = LockType.SEMAPHORE", Demo.CATALOGUE, "type = LockType.WRITE", Demo.REPORT_JOB,
			"holdAtLeast = \"${sample.report-job.hold-at-least}\"", Demo.LATCH, "this.latches.await(", Demo.LEADER,
			"@LeaderOnly");

	private final DemoCode code = new DemoCode();

	@Test
	void everySnippetIsTheTaggedRegionOfTheSourceFile() throws Exception {
		for (Demo demo : Demo.values()) {
			assertThat(demo.code()).as("code of %s", demo).isNotEmpty();
			for (Demo.Snippet snippet : demo.code()) {
				Path file = Path.of("src", "main", snippet.isJava() ? "java" : "resources").resolve(snippet.file());
				String source = Files.readString(file);
				assertThat(this.code.text(snippet)).as("%s's snippet %s", demo, snippet)
					.isEqualTo(DemoCode.extract(source, snippet))
					.isNotBlank();
			}
		}
	}

	@Test
	void eachDemoShowsTheApiItIsAbout() {
		for (Demo demo : Demo.values()) {
			String all = String.join("\n", this.code.code(demo).stream().map(DemoCode.Code::text).toList());
			assertThat(all).as("code panel of %s", demo).contains(API.get(demo));
		}
	}

	@Test
	void extractTakesTheLinesBetweenTheTagsWithoutTheirIndentation() {
		String source = "class A {\n\t// tag::x[]\n\t@Ann\n\tvoid m() {\n\t\tcall();\n\t}\n\t// end::x[]\n\tvoid n() {}\n}\n";
		assertThat(DemoCode.extract(source, new Demo.Snippet("A.java", "x")))
			.isEqualTo("@Ann\nvoid m() {\n    call();\n}\n");
	}

	@Test
	void aMissingTagFailsLoudly() {
		assertThatIllegalStateException()
			.isThrownBy(() -> DemoCode.extract("class A {}\n", new Demo.Snippet("A.java", "missing")))
			.withMessageContaining("missing");
	}

}
