package dev.distlock.bench;

import java.util.concurrent.ThreadLocalRandom;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.IterationParams;

/**
 * Does throughput stay flat as the key space grows? Eight threads acquire and release
 * (empty critical section, 30 s lease) a key drawn at random for each operation from
 * {@code keys} distinct keys (8, 1,000 or 100,000), so the local queue, the re-entry
 * table and the backend see as many keys as a service holding one lock per tenant or
 * order would; with 8 keys threads also meet on a key now and then. The keys are built
 * before the trial, so the score holds no string building. Same profilers and latency
 * histograms as {@link LockBenchmark}; its rows are {@code keys8}, {@code keys1000},
 * {@code keys100000} in {@code results.json}.
 */
public class KeySpreadBenchmark extends ThroughputBenchmark {

	@Benchmark
	@Threads(8)
	public void eightThreadsRandomKeys(Target target, Worker worker) throws Exception {
		String[] keys = target.keys;
		long start = System.nanoTime();
		target.subject.cycle(keys[ThreadLocalRandom.current().nextInt(keys.length)]);
		worker.histogram.record(start);
	}

	/** The subject and the key space, shared by the benchmark's threads. */
	@State(Scope.Benchmark)
	public static class Target {

		@Param({ "distlock-local-template", "distlock-redis-template", "distlock-jdbc-postgres", "distlock-zookeeper" })
		public String name;

		@Param({ "8", "1000", "100000" })
		public int keyCount;

		Subject subject;

		String[] keys;

		final Latency latency = new Latency();

		@Setup(Level.Trial)
		public void open() throws Exception {
			BenchConfig config = BenchConfig.fromSystemProperties();
			this.subject = Subjects.open(this.name, config);
			this.keys = new String[this.keyCount];
			for (int i = 0; i < this.keyCount; i++) {
				this.keys[i] = "bench:" + config.runId() + ":spread:" + i;
			}
		}

		@TearDown(Level.Trial)
		public void close() throws Exception {
			this.latency.write("keys" + this.keyCount, this.name);
			this.subject.close();
		}

	}

	/** One benchmark thread's latency histogram. */
	@State(Scope.Thread)
	public static class Worker {

		final IterationHistogram histogram = new IterationHistogram();

		@Setup(Level.Iteration)
		public void begin(IterationParams iteration) {
			this.histogram.begin(iteration);
		}

		@TearDown(Level.Iteration)
		public void end(Target target) {
			this.histogram.end(target.latency);
		}

	}

}
