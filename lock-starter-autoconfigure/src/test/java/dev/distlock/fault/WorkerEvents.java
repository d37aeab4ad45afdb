package dev.distlock.fault;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A child JVM's history file: one line per step,
 * {@code <nanoTime> <worker> <event> [fields...]}, written through to the operating
 * system at once, so that a line is there even if the process is killed the next instant
 * and the test can read it while the child runs. {@link System#nanoTime()} is the
 * machine's monotonic clock on Linux, the same in every JVM of the machine, so the lines
 * of several processes can be ordered.
 */
final class WorkerEvents {

	private final FileOutputStream out;

	private final String worker;

	WorkerEvents(String path, String worker) throws IOException {
		this.out = new FileOutputStream(path, true);
		this.worker = worker;
	}

	synchronized void log(String event, Object... fields) {
		StringBuilder line = new StringBuilder(64).append(System.nanoTime())
			.append(' ')
			.append(this.worker)
			.append(' ')
			.append(event);
		for (Object field : fields) {
			line.append(' ').append(field);
		}
		line.append('\n');
		try {
			this.out.write(line.toString().getBytes(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
