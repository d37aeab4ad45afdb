package dev.distlock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import com.sun.management.OperatingSystemMXBean;
import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.JdbcLockProvider;

/**
 * The scaling benchmark of held locks: one JVM holds {@code N} watchdog leases of
 * distinct keys at once on one backend and measures what keeping them costs while nothing
 * else happens, over whole renewal periods:
 * <ul>
 * <li>{@code cpu_pct}: the process's CPU time ({@code OperatingSystemMXBean}) per period
 * ÷ the period, in % of one core; {@code distlock_cpu_pct} the same for the threads whose
 * names start with {@code distlock-} ({@code ThreadMXBean}); an in-process ZooKeeper
 * server's CPU is in the first ({@code run.sh} runs the server in a JVM of its own);</li>
 * <li>{@code round_trips_per_period}: backend calls per period. Redis and JDBC: the
 * renewer's renewal batches (counted by {@link RenewalCounter}), each one backend call
 * (pipelined scripts on one connection; one JDBC batch on one connection). ZooKeeper: the
 * packets the server received (its JMX {@code PacketsReceived} in process, its
 * {@code srvr} command's {@code Received} in a JVM of its own), as its provider renews
 * lease by lease. {@code local}: none, there is no backend;</li>
 * <li>{@code distlock_threads}: live threads named {@code distlock-*}, the most seen at
 * the start and end;</li>
 * <li>{@code heap_bytes_per_lease}: heap used after a full GC with the N leases held (the
 * heap pools' usage after that collection, so nothing allocated since counts), minus the
 * same before they were acquired, ÷ N (the application was started and warmed before the
 * first figure). With an in-process ZooKeeper server the server's nodes are in it too
 * ({@code run.sh} runs the server in a JVM of its own);</li>
 * <li>{@code sweep_held_ms}, {@code sweep_held_rows} (JDBC only): one
 * {@link JdbcLockProvider#sweep()} with the N rows held, a scan of the table that finds
 * nothing of theirs to delete; {@code sweep_released_ms}, {@code sweep_released_rows}:
 * one right after the N leases were released, deleting their rows in batches;</li>
 * <li>{@code lost}: leases reported lost while held (renewals that did not keep up),
 * which voids the row; {@code lost_while_acquiring} those lost before the measurement
 * began (acquiring stops at the first loss, and {@code acquired} says how many were
 * taken), {@code release_failures} releases that failed at the end.</li>
 * </ul>
 * The watchdog runs with a short lease and interval ({@code bench.scaling.lease}, default
 * 3 s; {@code bench.scaling.interval}, default 1 s) so a period is short, ten times the
 * default renewal rate; {@code run.sh} also runs the largest N once with the watchdog's
 * defaults (30 s renewed every 10 s, {@code bench.scaling.setting=default}, recorded as
 * {@code setting}). Usage: {@code HeldLeases <out.jsonl> <subject> <N> <periods>}; it
 * appends one JSON line (or one with an {@code error}).
 */
public final class HeldLeases {

	/** The distlock subjects this benchmark runs, one per backend. */
	static final List<String> SUBJECTS = List.of("distlock-local-template", "distlock-redis-template",
			"distlock-jdbc-postgres", "distlock-zookeeper");

	private static final int THREADS = 8;

	private static final String THREAD_PREFIX = "distlock-";

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private static final ThreadMXBean THREAD_BEAN = ManagementFactory.getThreadMXBean();

	private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

	private HeldLeases() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of(args[0]);
		String subject = args[1];
		int n = Integer.parseInt(args[2]);
		int periods = Integer.parseInt(args[3]);
		Duration lease = Duration.parse("PT" + System.getProperty("bench.scaling.lease", "3s"));
		Duration interval = Duration.parse("PT" + System.getProperty("bench.scaling.interval", "1s"));
		Map<String, Object> row = new HashMap<>();
		row.put("subject", subject);
		row.put("n", n);
		row.put("lease_ms", lease.toMillis());
		row.put("interval_ms", interval.toMillis());
		// "stress" (the short lease and interval of the scaling rows) or "default" (the
		// watchdog's defaults, 30 s renewed every 10 s), set by run.sh
		row.put("setting", System.getProperty("bench.scaling.setting", "stress"));
		try {
			measure(BenchConfig.fromSystemProperties(), subject, n, periods, lease, interval, row);
		}
		catch (Exception | Error ex) {
			row.put("error", String.valueOf(ex));
			ex.printStackTrace();
		}
		String line = Json.object(row);
		System.out.println(line);
		Files.writeString(out, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		// a ZooKeeper thread may outlive TestingServer.close() (field notes): do not wait
		// for it
		System.exit(0);
	}

	private static void measure(BenchConfig config, String subject, int n, int periods, Duration lease,
			Duration interval, Map<String, Object> row) throws Exception {
		Map<String, Object> watchdog = Map.of("distlock.watchdog.lease", lease.toMillis() + "ms",
				"distlock.watchdog.interval", interval.toMillis() + "ms");
		try (Distlock distlock = Subjects.openDistlock(subject, config, watchdog)) {
			// the application's provider and settings, its renewal batches counted on the
			// way
			LockTemplate application = distlock.template();
			RenewalCounter renewer = new RenewalCounter(application.defaultProvider());
			try (LockTemplate template = new LockTemplate(List.of(renewer), renewer.name(), application.settings(),
					List.of())) {
				String prefix = "bench:" + config.runId() + ":held:";
				// start-up, JIT and the backend's first connections are not the leases'
				// cost
				for (int i = 0; i < 2000; i++) {
					template.acquire(request(prefix + "warm")).release();
				}
				long heapBefore = usedHeapAfterGc();
				AtomicInteger lost = new AtomicInteger();
				List<List<Lease>> held = new ArrayList<>();
				long acquireStart = System.nanoTime();
				// the first lost lease shows the renewals no longer keep up: acquiring
				// more would only take longer
				runOnWorkers((worker, leases) -> {
					for (int k = worker; k < n && lost.get() == 0; k += THREADS) {
						leases.add(template.acquire(request(prefix + k)).onLost(lost::incrementAndGet));
					}
				}, held);
				row.put("acquire_s", (System.nanoTime() - acquireStart) / 1e9);
				row.put("acquired", held.stream().mapToInt(List::size).sum());
				row.put("watched", template.activeLeases().stream().filter(LeaseSnapshot::watchdog).count());
				long heapHeld = usedHeapAfterGc();
				row.put("heap_bytes_per_lease", (heapHeld - heapBefore) / (double) n);
				// every lease has been renewed at least once before the figures start
				Thread.sleep(2 * interval.toMillis());
				int lostBefore = lost.get();
				int threadsAtStart = distlockThreads().size();
				Map<Long, Long> distlockCpuAtStart = distlockThreadCpu();
				long batches = renewer.batches();
				long packets = zooKeeperPackets();
				long cpu = OS.getProcessCpuTime();
				long wall = System.nanoTime();
				MachineLoad machine = MachineLoad.now();
				Thread.sleep(periods * interval.toMillis());
				double seconds = (System.nanoTime() - wall) / 1e9;
				double measuredPeriods = seconds * 1e3 / interval.toMillis();
				long cpuNanos = OS.getProcessCpuTime() - cpu;
				long batchCount = renewer.batches() - batches;
				long packetCount = zooKeeperPackets() - packets;
				row.put("other_load", MachineLoad.now().otherCores(machine));
				row.put("periods", measuredPeriods);
				row.put("cpu_pct", 100.0 * cpuNanos / 1e9 / seconds);
				row.put("distlock_cpu_pct", 100.0 * cpuDelta(distlockCpuAtStart, distlockThreadCpu()) / 1e9 / seconds);
				row.put("renewal_batches_per_period", batchCount / measuredPeriods);
				row.put("round_trips_per_period", subject.equals("distlock-zookeeper") ? packetCount / measuredPeriods
						: subject.equals("distlock-local-template") ? 0.0 : batchCount / measuredPeriods);
				List<String> names = distlockThreads();
				row.put("distlock_threads", Math.max(threadsAtStart, names.size()));
				row.put("distlock_thread_names", String.join(" ", names));
				row.put("lost", lost.get() - lostBefore);
				row.put("lost_while_acquiring", lostBefore);
				JdbcLockProvider jdbc = (application.defaultProvider() instanceof JdbcLockProvider provider) ? provider
						: null;
				if (jdbc != null) {
					// the sweep over a table of N live rows: a walk that finds none of
					// theirs to delete
					timeSweep(jdbc, "held", row);
				}
				// a lease lost meanwhile may refuse its release; the figures above stand
				// either way
				AtomicInteger releaseFailures = new AtomicInteger();
				runOnWorkers((worker, leases) -> held.get(worker).forEach((heldLease) -> {
					try {
						heldLease.release();
					}
					catch (RuntimeException ex) {
						releaseFailures.incrementAndGet();
					}
				}), null);
				row.put("release_failures", releaseFailures.get());
				if (jdbc != null) {
					// and once the N rows are released: deleting them, in batches
					timeSweep(jdbc, "released", row);
				}
			}
		}
	}

	/**
	 * One sweep of the JDBC lock table, timed: {@code sweep_<when>_ms} and {@code _rows}.
	 */
	private static void timeSweep(JdbcLockProvider jdbc, String when, Map<String, Object> row) {
		long start = System.nanoTime();
		int swept = jdbc.sweep();
		row.put("sweep_" + when + "_ms", (System.nanoTime() - start) / 1e6);
		row.put("sweep_" + when + "_rows", swept);
	}

	private static LockRequest request(String key) {
		// no lease: held until released, under the watchdog
		return LockRequest.builder(key).waitTime(BenchConfig.WAIT).build();
	}

	/**
	 * Runs the task on {@link #THREADS} threads, each with its own list, and waits for
	 * them; a lease is released on the thread that acquired it.
	 */
	private static void runOnWorkers(WorkerTask task, List<List<Lease>> lists) throws Exception {
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> threads = new ArrayList<>();
		for (int w = 0; w < THREADS; w++) {
			List<Lease> leases = new ArrayList<>();
			if (lists != null) {
				lists.add(leases);
			}
			int worker = w;
			Thread thread = new Thread(() -> {
				try {
					task.run(worker, leases);
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "bench-worker-" + w);
			threads.add(thread);
			thread.start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		if (failure.get() != null) {
			throw new IllegalStateException("A worker failed: " + failure.get(), failure.get());
		}
	}

	/**
	 * The heap the last of three full collections left, read from the heap pools' usage
	 * after that collection: the renewals keep allocating while this runs, and the heap's
	 * current usage (read 200 ms after the collection before) counted up to a few hundred
	 * bytes per lease of that garbage, which moved the figure by as much between two runs
	 * of the same code.
	 */
	private static long usedHeapAfterGc() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			Thread.sleep(200);
			System.gc();
		}
		long used = 0;
		for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
			MemoryUsage afterCollection = (pool.getType() == MemoryType.HEAP) ? pool.getCollectionUsage() : null;
			if (afterCollection != null) {
				used += afterCollection.getUsed();
			}
		}
		return (used > 0) ? used : MEMORY.getHeapMemoryUsage().getUsed();
	}

	private static List<String> distlockThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.map(Thread::getName)
			.filter((name) -> name.startsWith(THREAD_PREFIX))
			.sorted()
			.toList();
	}

	private static Map<Long, Long> distlockThreadCpu() {
		Map<Long, Long> cpu = new HashMap<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			if (thread.getName().startsWith(THREAD_PREFIX)) {
				cpu.put(thread.getId(), THREAD_BEAN.getThreadCpuTime(thread.getId()));
			}
		}
		return cpu;
	}

	/**
	 * CPU the threads alive at the end used since the start (a thread started meanwhile
	 * counts from zero).
	 */
	private static long cpuDelta(Map<Long, Long> start, Map<Long, Long> end) {
		long total = 0;
		for (Map.Entry<Long, Long> entry : end.entrySet()) {
			if (entry.getValue() >= 0) {
				total += entry.getValue() - Math.max(0, start.getOrDefault(entry.getKey(), 0L));
			}
		}
		return total;
	}

	/**
	 * Packets received by the ZooKeeper server: the one {@code bench.zk.connect} names
	 * (its {@code srvr} command's {@code Received}), else the in-process server(s), or 0
	 * when there is none.
	 */
	private static long zooKeeperPackets() throws Exception {
		String connect = System.getProperty("bench.zk.connect");
		if (connect != null) {
			String[] hostPort = connect.split(",")[0].split(":");
			try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
				socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
				String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
				Matcher received = Pattern.compile("Received: (\\d+)").matcher(answer);
				if (!received.find()) {
					throw new IllegalStateException("No packet count in the server's srvr answer: " + answer);
				}
				return Long.parseLong(received.group(1));
			}
		}
		MBeanServer server = ManagementFactory.getPlatformMBeanServer();
		long packets = 0;
		for (ObjectName name : server.queryNames(new ObjectName("org.apache.ZooKeeperService:name0=*"), null)) {
			if (name.getKeyPropertyList().size() == 1) {
				packets += ((Number) server.getAttribute(name, "PacketsReceived")).longValue();
			}
		}
		return packets;
	}

	@FunctionalInterface
	private interface WorkerTask {

		void run(int worker, List<Lease> leases) throws Exception;

	}

	/** The one JSON line a run appends: numbers, strings and booleans only. */
	static final class Json {

		private Json() {
		}

		static String object(Map<String, Object> fields) {
			StringBuilder json = new StringBuilder("{");
			fields.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach((entry) -> {
				if (json.length() > 1) {
					json.append(", ");
				}
				json.append(string(entry.getKey())).append(": ").append(value(entry.getValue()));
			});
			return json.append('}').toString();
		}

		private static String value(Object value) {
			if (value instanceof Double d) {
				return (d.isNaN() || d.isInfinite()) ? "null" : String.format(Locale.ROOT, "%.3f", d);
			}
			if (value instanceof Number || value instanceof Boolean) {
				return value.toString();
			}
			return string(String.valueOf(value));
		}

		private static String string(String s) {
			StringBuilder out = new StringBuilder("\"");
			for (char c : s.toCharArray()) {
				switch (c) {
					case '"' -> out.append("\\\"");
					case '\\' -> out.append("\\\\");
					case '\n' -> out.append("\\n");
					default -> {
						if (c < 0x20) {
							out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
						}
						else {
							out.append(c);
						}
					}
				}
			}
			return out.append('"').toString();
		}

	}

}
