package dev.distlock.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

import com.sun.management.OperatingSystemMXBean;

/**
 * Client CPU per operation: one thread runs acquire + release cycles of one subject and the JVM's whole CPU time
 * (benchmark thread, client I/O threads, GC) is divided by the count. Unlike throughput on a shared 2-core machine,
 * this barely depends on what else runs, so it shows what the library itself costs per lock.
 * <p>
 * Usage: {@code CpuPerOp <ops> <subject>...}
 */
public final class CpuPerOp {

	private CpuPerOp() {
	}

	public static void main(String[] args) throws Exception {
		int ops = Integer.parseInt(args[0]);
		OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
		for (int i = 1; i < args.length; i++) {
			BenchConfig config = BenchConfig.fromSystemProperties();
			try (Subject subject = Subjects.open(args[i], config)) {
				String key = "bench:" + config.runId() + ":cpu";
				for (int n = 0; n < Math.max(2000, ops / 5); n++) {
					subject.cycle(key);
				}
				for (int round = 0; round < 3; round++) {
					long cpu = os.getProcessCpuTime();
					long wall = System.nanoTime();
					for (int n = 0; n < ops; n++) {
						subject.cycle(key);
					}
					double cpuUs = (os.getProcessCpuTime() - cpu) / 1e3 / ops;
					double wallUs = (System.nanoTime() - wall) / 1e3 / ops;
					System.out.printf(Locale.ROOT, "%-28s cpu %8.2f us/op  wall %8.2f us/op%n", args[i], cpuUs, wallUs);
				}
			}
		}
		System.exit(0);
	}

}
