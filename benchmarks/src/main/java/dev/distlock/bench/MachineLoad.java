package dev.distlock.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the rest of the machine was doing while a figure was taken, read from Linux's
 * {@code /proc}: the 1-minute load average, and the CPU that processes other than this
 * benchmark used.
 * <p>
 * The load average alone cannot tell a quiet machine from a busy one here: the benchmark
 * itself keeps threads runnable (one busy caller drives it toward 1; eight callers,
 * client threads and Redis toward 2 or more). The CPU that others used is what disturbs a
 * figure: all CPU time the kernel counted ({@code /proc/stat}) minus this process, its
 * parent and its reaped children (the JMH host; the handoff children) and the Redis and
 * PostgreSQL servers and the etcd the subjects talk to ({@code redis-server},
 * {@code postgres} and {@code etcd} processes, including their reaped children, and the
 * processes named by {@code -Dbench.server.pids}). A private server another test started
 * under those names counts as ours, so its client's CPU shows but its own does not.
 * <p>
 * Every figure is {@code NaN} where {@code /proc} cannot be read.
 *
 * @param wallNanos {@link System#nanoTime()} when taken
 * @param loadAverage the 1-minute load average
 * @param busyTicks non-idle CPU time of the whole machine, in clock ticks
 * @param ownTicks CPU time of this process, its parent and their reaped children, in
 * clock ticks
 * @param serverTicks CPU time of the Redis and PostgreSQL server processes, in clock
 * ticks
 * @param stealTicks time the hypervisor ran something else while this machine's CPUs had
 * work ({@code steal} of {@code /proc/stat}), in clock ticks
 */
record MachineLoad(long wallNanos, double loadAverage, long busyTicks, long ownTicks, long serverTicks,
		long stealTicks) {

	/**
	 * {@code USER_HZ}: the unit of {@code /proc} CPU times on every Linux architecture
	 * the JDK runs on.
	 */
	private static final double TICKS_PER_SECOND = 100;

	private static final Set<String> SERVERS = Set.of("redis-server", "postgres", "etcd");

	/**
	 * Further server processes by pid, from {@code -Dbench.server.pids}
	 * (comma-separated): the ZooKeeper server {@code run.sh} starts in a JVM of its own
	 * for the scaling rows.
	 */
	private static final Set<String> SERVER_PIDS = Arrays.stream(System.getProperty("bench.server.pids", "").split(","))
		.map(String::trim)
		.filter((pid) -> !pid.isEmpty())
		.collect(Collectors.toUnmodifiableSet());

	private static final Path PROC = Path.of("/proc");

	/**
	 * Reads the machine's state now.
	 * @return the snapshot
	 */
	static MachineLoad now() {
		long wall = System.nanoTime();
		double load = Double.NaN;
		long busy = -1;
		long own = -1;
		long servers = -1;
		long steal = -1;
		try {
			load = Double.parseDouble(Files.readString(PROC.resolve("loadavg")).split(" ")[0]);
			String[] cpu = Files.readAllLines(PROC.resolve("stat")).get(0).trim().split("\\s+");
			busy = machineBusyTicks(cpu);
			steal = Long.parseLong(cpu[8]);
			own = processTicks(PROC.resolve("self"));
			long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
			if (parent > 1) {
				own += processTicks(PROC.resolve(Long.toString(parent)));
			}
			servers = serversTicks();
		}
		catch (IOException | RuntimeException ex) {
			// not Linux, or a process vanished between listing and reading: the figures
			// stay unknown
		}
		return new MachineLoad(wall, load, busy, own, servers, steal);
	}

	/**
	 * Average number of cores that other processes kept busy since an earlier snapshot.
	 * @param earlier the snapshot at the start of the span
	 * @return cores, or {@code NaN} if unknown
	 */
	double otherCores(MachineLoad earlier) {
		if (this.busyTicks < 0 || earlier.busyTicks < 0 || this.ownTicks < 0 || earlier.ownTicks < 0
				|| this.serverTicks < 0 || earlier.serverTicks < 0 || this.wallNanos == earlier.wallNanos) {
			return Double.NaN;
		}
		long others = (this.busyTicks - earlier.busyTicks) - (this.ownTicks - earlier.ownTicks)
				- (this.serverTicks - earlier.serverTicks);
		double seconds = (this.wallNanos - earlier.wallNanos) / 1e9;
		return Math.max(0, others / TICKS_PER_SECOND / seconds);
	}

	/**
	 * Average number of cores the hypervisor gave to something else while they had work
	 * here, since an earlier snapshot.
	 * @param earlier the snapshot at the start of the span
	 * @return cores, or {@code NaN} if unknown
	 */
	double stealCores(MachineLoad earlier) {
		return perSecond(this.stealTicks, earlier.stealTicks, earlier);
	}

	/**
	 * Average number of cores the Redis and PostgreSQL servers kept busy since an earlier
	 * snapshot.
	 * @param earlier the snapshot at the start of the span
	 * @return cores, or {@code NaN} if unknown
	 */
	double serverCores(MachineLoad earlier) {
		return perSecond(this.serverTicks, earlier.serverTicks, earlier);
	}

	private double perSecond(long ticks, long earlierTicks, MachineLoad earlier) {
		if (ticks < 0 || earlierTicks < 0 || this.wallNanos == earlier.wallNanos) {
			return Double.NaN;
		}
		return (ticks - earlierTicks) / TICKS_PER_SECOND / ((this.wallNanos - earlier.wallNanos) / 1e9);
	}

	/**
	 * user + nice + system + irq + softirq + steal of the {@code cpu} line (guest time is
	 * inside user).
	 */
	private static long machineBusyTicks(String[] f) {
		long busy = 0;
		for (int i : new int[] { 1, 2, 3, 6, 7, 8 }) {
			if (i < f.length) {
				busy += Long.parseLong(f[i]);
			}
		}
		return busy;
	}

	/**
	 * utime + stime + cutime + cstime of {@code /proc/<pid>/stat} (fields 14–17; the name
	 * may hold spaces).
	 */
	private static long processTicks(Path process) throws IOException {
		String stat = Files.readString(process.resolve("stat"), StandardCharsets.US_ASCII);
		String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		// f[0] is field 3 (state), so field n is f[n - 3]
		return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
	}

	private static long serversTicks() throws IOException {
		long ticks = 0;
		try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, "[0-9]*")) {
			for (Path process : processes) {
				try {
					if (SERVERS.contains(Files.readString(process.resolve("comm")).trim())
							|| SERVER_PIDS.contains(process.getFileName().toString())) {
						ticks += processTicks(process);
					}
				}
				catch (IOException | RuntimeException ex) {
					// exited while we looked: its time moved to its parent's
					// reaped-children figures
				}
			}
		}
		return ticks;
	}

}
