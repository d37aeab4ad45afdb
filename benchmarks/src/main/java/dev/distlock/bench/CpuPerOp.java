package dev.distlock.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import com.sun.management.OperatingSystemMXBean;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Process CPU per operation: the JVM's whole CPU time (benchmark threads, client I/O
 * threads, timers, JIT, GC) divided by the operations done. Unlike throughput on a shared
 * 2-core machine, this barely depends on what else runs, so it shows what a library
 * itself costs per lock.
 * <p>
 * As a JMH profiler ({@code -prof dev.distlock.bench.CpuPerOp}, which {@code run.sh}
 * passes) it runs inside each benchmark fork and adds these secondary results to every
 * iteration (JMH keeps those of measurement iterations only):
 * <ul>
 * <li>{@code cpu.us.per.op}: process CPU time over the iteration ÷ every operation of the
 * iteration, the same operation count JMH's gc profiler divides by for
 * {@code gc.alloc.rate.norm};</li>
 * <li>{@code cpu.cores}: that CPU time ÷ the iteration's wall time;</li>
 * <li>{@code load.before}, {@code load.after}: the 1-minute load average at the
 * iteration's start and end;</li>
 * <li>{@code load.others}: cores that other processes kept busy during the iteration
 * ({@link MachineLoad});</li>
 * <li>{@code load.steal}: cores the hypervisor gave to something else while this
 * machine's CPUs had work;</li>
 * <li>{@code server.us.per.op}: CPU time of the Redis and PostgreSQL servers over the
 * iteration ÷ its operations (clock ticks of 10 ms, so only a long iteration reads it
 * well);</li>
 * <li>{@code cs.voluntary.per.op}, {@code cs.involuntary.per.op}: context switches of
 * this process's threads over the iteration ÷ its operations: a thread that parked, and
 * one the kernel preempted (threads that ended during the iteration are not
 * counted).</li>
 * </ul>
 * JMH runs a benchmark's trial-level set-up in its first iteration and tear-down in its
 * last, so those two carry the start or shutdown of the subject's application;
 * {@code report.py} takes the median over measurement iterations.
 * <p>
 * Run on its own ({@code CpuPerOp <ops> <subject>...}) it times one thread's acquire +
 * release cycles of each subject outside JMH, three rounds after a warm-up.
 */
public final class CpuPerOp implements InternalProfiler {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private long cpuAtStart;

	private MachineLoad machineAtStart;

	private long[] switchesAtStart;

	@Override
	public String getDescription() {
		return "process CPU time per operation, and the CPU other processes used meanwhile";
	}

	@Override
	public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
		this.switchesAtStart = contextSwitches();
		this.machineAtStart = MachineLoad.now();
		this.cpuAtStart = OS.getProcessCpuTime();
	}

	@Override
	public List<Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
			IterationResult result) {
		long cpu = OS.getProcessCpuTime() - this.cpuAtStart;
		MachineLoad machine = MachineLoad.now();
		long[] switches = contextSwitches();
		long ops = result.getMetadata().getAllOps();
		double seconds = (machine.wallNanos() - this.machineAtStart.wallNanos()) / 1e9;
		double perOp = (ops > 0) ? 1.0 / ops : Double.NaN;
		return List.of(new ScalarResult("cpu.us.per.op", cpu / 1e3 * perOp, "us/op", AggregationPolicy.AVG),
				new ScalarResult("cpu.cores", cpu / 1e9 / seconds, "cores", AggregationPolicy.AVG),
				new ScalarResult("load.before", this.machineAtStart.loadAverage(), "load", AggregationPolicy.AVG),
				new ScalarResult("load.after", machine.loadAverage(), "load", AggregationPolicy.AVG),
				new ScalarResult("load.others", machine.otherCores(this.machineAtStart), "cores",
						AggregationPolicy.AVG),
				new ScalarResult("load.steal", machine.stealCores(this.machineAtStart), "cores", AggregationPolicy.AVG),
				new ScalarResult("server.us.per.op", machine.serverCores(this.machineAtStart) * seconds * 1e6 * perOp,
						"us/op", AggregationPolicy.AVG),
				new ScalarResult("cs.voluntary.per.op", (switches[0] - this.switchesAtStart[0]) * perOp, "switches/op",
						AggregationPolicy.AVG),
				new ScalarResult("cs.involuntary.per.op", (switches[1] - this.switchesAtStart[1]) * perOp,
						"switches/op", AggregationPolicy.AVG));
	}

	/**
	 * Voluntary and involuntary context switches of this process's live threads so far,
	 * from {@code /proc/self/task/<tid>/status}; zeros where that cannot be read.
	 */
	private static long[] contextSwitches() {
		long[] switches = new long[2];
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
			for (Path task : tasks) {
				try {
					for (String line : Files.readAllLines(task.resolve("status"))) {
						if (line.startsWith("voluntary_ctxt_switches:")) {
							switches[0] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
						}
						else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
							switches[1] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
						}
					}
				}
				catch (IOException | RuntimeException ex) {
					// the thread ended while we looked
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not Linux: the counts stay zero
		}
		return switches;
	}

	public static void main(String[] args) throws Exception {
		int ops = Integer.parseInt(args[0]);
		for (int i = 1; i < args.length; i++) {
			BenchConfig config = BenchConfig.fromSystemProperties();
			try (Subject subject = Subjects.open(args[i], config)) {
				String key = "bench:" + config.runId() + ":cpu";
				for (int n = 0; n < Math.max(2000, ops / 5); n++) {
					subject.cycle(key);
				}
				for (int round = 0; round < 3; round++) {
					long cpu = OS.getProcessCpuTime();
					long wall = System.nanoTime();
					for (int n = 0; n < ops; n++) {
						subject.cycle(key);
					}
					double cpuUs = (OS.getProcessCpuTime() - cpu) / 1e3 / ops;
					double wallUs = (System.nanoTime() - wall) / 1e3 / ops;
					System.out.printf(Locale.ROOT, "%-28s cpu %8.2f us/op  wall %8.2f us/op%n", args[i], cpuUs, wallUs);
				}
			}
		}
		System.exit(0);
	}

}
