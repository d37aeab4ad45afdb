package dev.distlock.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Throughput of one critical section with an empty body (acquire + release), per subject,
 * in four shapes:
 * <ul>
 * <li>{@code oneThread} ({@code 1t}): one thread, one key, acquired and released over and
 * over;</li>
 * <li>{@code eightThreadsEightKeys} ({@code 8t8k}): eight threads, each on its own key,
 * sharing the subject's client;</li>
 * <li>{@code eightThreadsOneKey} ({@code 8t1k}): eight threads on one key (contention
 * inside one JVM);</li>
 * <li>{@code reentry}: one thread acquires and releases the key while it already holds it
 * (the outer hold is taken before each iteration and released after it), so the score is
 * the cost of re-entry alone.</li>
 * </ul>
 * Every operation is also timed into a histogram ({@link Latency}) for p50/p99. One JVM
 * fork per subject, so each subject runs alone with only its own libraries' threads.
 * {@code run.sh} adds two profilers: JMH's {@code gc} (bytes allocated per operation, all
 * threads of the fork) and {@link CpuPerOp} (process CPU per operation, and what the rest
 * of the machine did meanwhile).
 */
public class LockBenchmark extends ThroughputBenchmark {

	@Benchmark
	@Threads(1)
	public void oneThread(Target target, Worker worker) throws Exception {
		worker.cycle(target.subject, worker.ownKey);
	}

	@Benchmark
	@Threads(8)
	public void eightThreadsEightKeys(Target target, Worker worker) throws Exception {
		worker.cycle(target.subject, worker.ownKey);
	}

	@Benchmark
	@Threads(8)
	public void eightThreadsOneKey(Target target, Worker worker) throws Exception {
		worker.cycle(target.subject, target.sharedKey);
	}

	@Benchmark
	@Threads(1)
	public void reentry(Target target, Worker worker, Outer outer) throws Exception {
		worker.cycle(target.subject, worker.ownKey);
	}

	/** The subject under test, shared by the benchmark's threads. */
	@State(Scope.Benchmark)
	public static class Target {

		@Param({ "ceiling-lettuce", "distlock-redis-template", "distlock-redis-annotation",
				"distlock-redis-async-release", "distlock-redisson", "redisson-rlock", "si-redis-spin",
				"si-redis-pubsub", "lock4j", "distlock-zookeeper", "curator-mutex", "distlock-etcd", "jetcd-lock",
				"distlock-jdbc-postgres", "si-jdbc-postgres", "distlock-local-annotation", "distlock-local-template",
				"plain-call" })
		public String name;

		Subject subject;

		BenchConfig config;

		String sharedKey;

		final Latency latency = new Latency();

		@Setup(Level.Trial)
		public void open() throws Exception {
			this.config = BenchConfig.fromSystemProperties();
			this.subject = Subjects.open(this.name, this.config);
			this.sharedKey = key("shared");
		}

		@TearDown(Level.Trial)
		public void close(BenchmarkParams params) throws Exception {
			String benchmark = params.getBenchmark();
			this.latency.write(benchmark.substring(benchmark.lastIndexOf('.') + 1), this.name);
			this.subject.close();
		}

		String key(String name) {
			return "bench:" + this.config.runId() + ":" + name;
		}

	}

	/** One benchmark thread: its own key and latency histogram. */
	@State(Scope.Thread)
	public static class Worker {

		String ownKey;

		private final IterationHistogram histogram = new IterationHistogram();

		@Setup(Level.Trial)
		public void key(Target target, ThreadParams thread) {
			this.ownKey = target.key("t" + thread.getThreadIndex());
		}

		@Setup(Level.Iteration)
		public void begin(IterationParams iteration) {
			this.histogram.begin(iteration);
		}

		@TearDown(Level.Iteration)
		public void end(Target target) {
			this.histogram.end(target.latency);
		}

		void cycle(Subject subject, String key) throws Exception {
			long start = System.nanoTime();
			subject.cycle(key);
			this.histogram.record(start);
		}

	}

	/**
	 * The outer hold of the re-entry benchmark, taken on the benchmark thread around each
	 * iteration.
	 */
	@State(Scope.Thread)
	public static class Outer {

		private Subject.Hold hold;

		@Setup(Level.Iteration)
		public void acquire(Target target, Worker worker) throws Exception {
			if (!target.subject.reentrant()) {
				throw new IllegalStateException(target.name + " is not re-entrant");
			}
			this.hold = target.subject.lock(worker.ownKey);
		}

		@TearDown(Level.Iteration)
		public void release() throws Exception {
			this.hold.unlock();
		}

	}

}
