package dev.distlock.sample.demo;

import java.io.PrintStream;

import dev.distlock.sample.SampleProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Runs the contention demo at startup when {@code sample.demo.ops} is set, prints its
 * table, and makes the application's exit code 1 if the lock let anything through (the
 * main method exits after it).
 */
@Component
@ConditionalOnProperty(prefix = "sample.demo", name = "ops")
public class DemoRunner implements CommandLineRunner, ExitCodeGenerator {

	private final ContentionDemo demo;

	private final SampleProperties.Demo properties;

	private final PrintStream out;

	private volatile ContentionDemo.@Nullable DemoResult result;

	DemoRunner(ContentionDemo demo, SampleProperties properties) {
		this.demo = demo;
		this.properties = properties.demo();
		this.out = System.out;
	}

	@Override
	public void run(String... args) throws InterruptedException {
		int ops = (this.properties.ops() != null) ? this.properties.ops() : 0;
		int instances = this.properties.instancesOrThreads();
		this.out.printf(
				"%ndistlock contention demo: %d threads playing %d instances of the application (a "
						+ "LockTemplate each), %d operations on one key%n%n",
				this.properties.threads(), instances, ops);
		ContentionDemo.DemoResult result = this.demo.run(this.properties.threads(), instances, ops);
		this.result = result;
		this.out.print(result.table());
		this.out.printf("%nkey %s; counter %s ops - failed (%d): %s%n%n", result.key(),
				(result.counter() == result.ops() - result.failed()) ? "equals" : "DIFFERS FROM",
				result.ops() - result.failed(), result.correct() ? "the lock held" : "THE LOCK FAILED");
	}

	@Override
	public int getExitCode() {
		ContentionDemo.DemoResult result = this.result;
		return (result != null && result.correct()) ? 0 : 1;
	}

	/**
	 * The result of the run at startup.
	 * @return the result, {@code null} before the run
	 */
	public ContentionDemo.@Nullable DemoResult result() {
		return this.result;
	}

}
