package dev.distlock.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.DataFormatException;

import org.HdrHistogram.Histogram;

/**
 * Per-operation latency of one benchmark run (one subject, one shape), merged from the
 * threads' histograms of the measurement iterations only, and written as JSON next to
 * JMH's results for {@code report.py}. JMH's own {@code Mode.SampleTime} would need a
 * second run of every benchmark; timing each operation inside the throughput run costs
 * two {@code System.nanoTime()} calls (tens of ns against operations of tens of µs or
 * more) and keeps ops/s and percentiles from the same iterations. A subject that runs in
 * several forks of one run (run.sh's rounds, {@code -f 3}) adds each fork's operations to
 * the histogram the forks before it left beside the JSON ({@code .hdr}), so the
 * percentiles are those of every fork.
 */
final class Latency {

	/** 1 ns to 60 s at 3 significant digits. */
	static Histogram newHistogram() {
		return new Histogram(60_000_000_000L, 3);
	}

	private final Histogram merged = newHistogram();

	synchronized void add(Histogram histogram) {
		this.merged.add(histogram);
	}

	synchronized void write(String benchmark, String subject) throws IOException {
		String dir = System.getProperty("bench.out");
		if (dir == null || this.merged.getTotalCount() == 0) {
			return;
		}
		Path folder = Path.of(dir, "latency");
		Files.createDirectories(folder);
		// the operations of the earlier forks of this subject and benchmark in the run
		// (run.sh's rounds, -f 3) count too: each fork leaves the merged histogram here
		Path forks = folder.resolve(benchmark + "__" + subject + ".hdr");
		if (Files.exists(forks)) {
			try {
				this.merged
					.add(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Files.readAllBytes(forks)), 0));
			}
			catch (DataFormatException ex) {
				throw new IOException("Cannot read " + forks, ex);
			}
		}
		ByteBuffer encoded = ByteBuffer.allocate(this.merged.getNeededByteBufferCapacity());
		this.merged.encodeIntoCompressedByteBuffer(encoded);
		Files.write(forks, Arrays.copyOf(encoded.array(), encoded.position()));
		String json = String.format(Locale.ROOT,
				"{\"benchmark\": \"%s\", \"subject\": \"%s\", \"count\": %d, \"p50_us\": %.3f, \"p90_us\": %.3f, "
						+ "\"p99_us\": %.3f, \"p999_us\": %.3f, \"max_us\": %.3f, \"mean_us\": %.3f}%n",
				benchmark, subject, this.merged.getTotalCount(), micros(this.merged.getValueAtPercentile(50)),
				micros(this.merged.getValueAtPercentile(90)), micros(this.merged.getValueAtPercentile(99)),
				micros(this.merged.getValueAtPercentile(99.9)), micros(this.merged.getMaxValue()),
				this.merged.getMean() / 1000.0);
		Files.writeString(folder.resolve(benchmark + "__" + subject + ".json"), json, StandardCharsets.UTF_8);
	}

	private static double micros(long nanos) {
		return nanos / 1000.0;
	}

}
