package dev.distlock.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.test.TestingServer;

/**
 * Handoff latency: two JVMs ping-pong one lock, and each handoff is timed from the moment
 * the holder starts releasing to the moment the other process's blocked acquire returns.
 * <p>
 * Method. The two processes share a small memory-mapped file: the number of acquisitions
 * so far ({@code seq}), the wall-clock time at which the last holder started its release,
 * and a flag saying that the next waiter has entered its acquire. AttemptOutcome
 * {@code k} belongs to process {@code k % 2}. The holder bumps {@code seq} (so the other
 * process calls {@code lock()} and blocks), waits until the other has entered
 * {@code lock()} plus a margin ({@code holdMs}, so the waiter is really parked on the
 * backend's notification or poll), writes the wall-clock time and releases. The new
 * holder reads the time right after its {@code lock()} returns. Both sides use
 * {@link Instant#now()} (one system clock, nanosecond resolution on Linux), since
 * {@code System.nanoTime()} has no defined origin across JVMs. As a cross-check that
 * needs no shared clock, each process also times, on its own {@code nanoTime}, the span
 * from its release to its next acquisition; minus the other process's hold (timed on the
 * other's clock) that span is two handoffs, whose mean must agree with the wall-clock
 * mean.
 * <p>
 * The 1-minute load average before and after each subject and the CPU other processes
 * used meanwhile (the two children and this process count as ours; see
 * {@link MachineLoad}) go into its line as {@code load_before}, {@code load_after} and
 * {@code other_load}.
 * <p>
 * Usage: {@code Handoff <out.jsonl> <rounds> <warmup> <holdMs> <maxSeconds> <subject>...}
 * (the parent), which starts the two children with this JVM's class path and
 * {@code bench.*} properties, and an in-process ZooKeeper for the ZooKeeper subjects.
 */
public final class Handoff {

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private static final int SEQ = 0;

	private static final int RELEASED_AT = 8;

	private static final int ENTERED = 16;

	private static final int READY = 24;

	private static final int STOP = 32;

	private static final int DONE = 40;

	private Handoff() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("--child")) {
			child(args);
			return;
		}
		if (args.length < 6) {
			System.err.println("usage: Handoff <out.jsonl> <rounds> <warmup> <holdMs> <maxSeconds> <subject>...");
			System.exit(2);
		}
		Path out = Path.of(args[0]);
		int rounds = Integer.parseInt(args[1]);
		int warmup = Integer.parseInt(args[2]);
		int holdMs = Integer.parseInt(args[3]);
		int maxSeconds = Integer.parseInt(args[4]);
		for (String subject : Arrays.copyOfRange(args, 5, args.length)) {
			String line;
			try {
				line = measure(subject, rounds, warmup, holdMs, maxSeconds, out.getParent());
			}
			catch (Exception ex) {
				System.err.println("handoff " + subject + " failed: " + ex);
				line = String.format(Locale.ROOT, "{\"subject\": \"%s\", \"error\": \"%s\"}", subject,
						String.valueOf(ex.getMessage()).replace('"', '\''));
			}
			System.out.println(line);
			Files.writeString(out, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		System.exit(0);
	}

	private static String measure(String subject, int rounds, int warmup, int holdMs, int maxSeconds, Path dir)
			throws Exception {
		Path work = Files.createTempDirectory(dir, "handoff-" + subject + "-");
		Path shared = work.resolve("shared");
		Files.write(shared, new byte[64]);
		TestingServer zookeeper = null;
		List<String> properties = new ArrayList<>();
		System.getProperties().forEach((name, value) -> {
			if (name.toString().startsWith("bench.")) {
				properties.add("-D" + name + "=" + value);
			}
		});
		String runId = UUID.randomUUID().toString().substring(0, 8);
		properties.add("-Dbench.run.id=" + runId);
		if ((subject.contains("zookeeper") || subject.contains("curator"))
				&& System.getProperty("bench.zk.connect") == null) {
			zookeeper = ZooKeeperServer.inProcess();
			properties.add("-Dbench.zk.connect=" + zookeeper.getConnectString());
		}
		EtcdServer etcd = null;
		if (subject.contains("etcd") && System.getProperty(EtcdServer.ENDPOINTS) == null) {
			etcd = EtcdServer.start();
			properties.add("-D" + EtcdServer.ENDPOINTS + "=" + etcd.endpoints());
		}
		String key = "bench:" + runId + ":handoff";
		int total = rounds + warmup + 1;
		MachineLoad before = MachineLoad.now();
		List<Process> children = new ArrayList<>();
		try {
			for (int parity = 0; parity < 2; parity++) {
				List<String> command = new ArrayList<>();
				command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
				command.add("-Xms256m");
				command.add("-Xmx512m");
				command.addAll(properties);
				command.add("-cp");
				command.add(System.getProperty("java.class.path"));
				command.add(Handoff.class.getName());
				command.addAll(List.of("--child", subject, String.valueOf(parity), shared.toString(), key,
						String.valueOf(total), String.valueOf(holdMs), String.valueOf(maxSeconds),
						work.resolve("child-" + parity + ".txt").toString()));
				ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(work.resolve("child-" + parity + ".log").toFile());
				children.add(builder.start());
			}
			for (int parity = 0; parity < 2; parity++) {
				Process child = children.get(parity);
				if (!child.waitFor(maxSeconds + 240L, TimeUnit.SECONDS)) {
					throw new IllegalStateException("child " + parity + " did not finish; see " + work);
				}
				if (child.exitValue() != 0) {
					throw new IllegalStateException("child " + parity + " failed (exit " + child.exitValue() + "); see "
							+ work.resolve("child-" + parity + ".log"));
				}
			}
		}
		finally {
			children.forEach(Process::destroy);
			if (zookeeper != null) {
				zookeeper.close();
			}
			if (etcd != null) {
				etcd.close();
			}
		}
		MachineLoad after = MachineLoad.now();
		String summary = summarize(subject, work, warmup);
		return summary.substring(0, summary.length() - 1)
				+ String.format(Locale.ROOT, ", \"load_before\": %s, \"load_after\": %s, \"other_load\": %s}",
						json(before.loadAverage()), json(after.loadAverage()), json(after.otherCores(before)));
	}

	private static String json(double value) {
		return Double.isNaN(value) ? "null" : String.format(Locale.ROOT, "%.2f", value);
	}

	/**
	 * Record of one acquisition k: wall-clock handoff latency, local acquire and
	 * release-start times.
	 */
	private record AttemptOutcome(long k, long latencyNanos, long acquiredNano, long releasingNano) {
	}

	private static String summarize(String subject, Path work, int warmup) throws IOException {
		Map<Long, AttemptOutcome> byK = new TreeMap<>();
		for (int parity = 0; parity < 2; parity++) {
			for (String line : Files.readAllLines(work.resolve("child-" + parity + ".txt"))) {
				String[] f = line.trim().split(" ");
				AttemptOutcome a = new AttemptOutcome(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
						Long.parseLong(f[3]));
				byK.put(a.k(), a);
			}
		}
		List<Long> latencies = new ArrayList<>();
		List<Long> pairs = new ArrayList<>();
		for (AttemptOutcome a : byK.values()) {
			if (a.k() <= warmup) {
				continue;
			}
			latencies.add(a.latencyNanos());
			// same process: k-2 released, k-1 by the other process, k acquired again
			AttemptOutcome twoBack = byK.get(a.k() - 2);
			AttemptOutcome oneBack = byK.get(a.k() - 1);
			if (twoBack != null && oneBack != null) {
				long span = a.acquiredNano() - twoBack.releasingNano();
				long otherHold = oneBack.releasingNano() - oneBack.acquiredNano();
				pairs.add((span - otherHold) / 2);
			}
		}
		if (latencies.isEmpty()) {
			throw new IllegalStateException("no handoff measured; see " + work);
		}
		long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
		long[] pairSorted = pairs.stream().mapToLong(Long::longValue).sorted().toArray();
		return String.format(Locale.ROOT,
				"{\"subject\": \"%s\", \"shape\": \"handoff\", \"count\": %d, \"p50_us\": %.1f, \"p90_us\": %.1f, "
						+ "\"p99_us\": %.1f, \"max_us\": %.1f, \"mean_us\": %.1f, \"pair_mean_us\": %.1f, "
						+ "\"pair_p50_us\": %.1f}",
				subject, sorted.length, pct(sorted, 50) / 1e3, pct(sorted, 90) / 1e3, pct(sorted, 99) / 1e3,
				sorted[sorted.length - 1] / 1e3, mean(sorted) / 1e3, mean(pairSorted) / 1e3, pct(pairSorted, 50) / 1e3);
	}

	private static double pct(long[] sorted, double percentile) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	private static double mean(long[] values) {
		return (values.length == 0) ? Double.NaN : Arrays.stream(values).average().orElse(Double.NaN);
	}

	private static long wallNanos() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000_000L + now.getNano();
	}

	private static void child(String[] args) throws Exception {
		String subjectName = args[1];
		int parity = Integer.parseInt(args[2]);
		Path sharedFile = Path.of(args[3]);
		String key = args[4];
		long total = Long.parseLong(args[5]);
		long holdNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6]));
		long maxMillis = TimeUnit.SECONDS.toMillis(Long.parseLong(args[7]));
		Path result = Path.of(args[8]);
		MappedByteBuffer shared;
		try (FileChannel channel = FileChannel.open(sharedFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
			shared = channel.map(FileChannel.MapMode.READ_WRITE, 0, 64);
		}
		StringBuilder records = new StringBuilder();
		try (Subject subject = Subjects.open(subjectName, BenchConfig.fromSystemProperties())) {
			// one acquisition alone first: connections, scripts and code paths are warm
			// before the other starts
			subject.lock(key + ":warm-" + parity).unlock();
			LONGS.getAndAdd(shared, READY, 1L);
			long startedAt = System.currentTimeMillis();
			while ((long) LONGS.getVolatile(shared, READY) < 2) {
				if (System.currentTimeMillis() - startedAt > 120_000) {
					throw new IllegalStateException("the other process never got ready");
				}
				LockSupport.parkNanos(100_000);
			}
			long deadline = System.currentTimeMillis() + maxMillis;
			while (true) {
				long k;
				while ((k = (long) LONGS.getVolatile(shared, SEQ)) % 2 != parity) {
					if ((long) LONGS.getVolatile(shared, STOP) != 0) {
						break;
					}
					LockSupport.parkNanos(20_000);
				}
				if ((long) LONGS.getVolatile(shared, STOP) != 0) {
					break;
				}
				if (k >= total || System.currentTimeMillis() > deadline) {
					LONGS.setVolatile(shared, STOP, 1L);
					break;
				}
				LONGS.setVolatile(shared, ENTERED, k + 1);
				Subject.Hold hold = subject.lock(key);
				long acquiredWall = wallNanos();
				long acquiredNano = System.nanoTime();
				long releasedAt = (long) LONGS.getVolatile(shared, RELEASED_AT);
				LONGS.setVolatile(shared, SEQ, k + 1);
				// hold until the other process is inside lock(), plus the margin, so it
				// waits the backend's way
				long enteredBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
				while ((long) LONGS.getVolatile(shared, ENTERED) != k + 2 && (long) LONGS.getVolatile(shared, STOP) == 0
						&& System.nanoTime() - enteredBy < 0) {
					LockSupport.parkNanos(20_000);
				}
				long until = System.nanoTime() + holdNanos;
				while (System.nanoTime() - until < 0) {
					LockSupport.parkNanos(until - System.nanoTime());
				}
				long releasingNano = System.nanoTime();
				LONGS.setVolatile(shared, RELEASED_AT, wallNanos());
				hold.unlock();
				if (k > 0) {
					records.append(k)
						.append(' ')
						.append(acquiredWall - releasedAt)
						.append(' ')
						.append(acquiredNano)
						.append(' ')
						.append(releasingNano)
						.append('\n');
				}
				else {
					records.append(k).append(" 0 ").append(acquiredNano).append(' ').append(releasingNano).append('\n');
				}
			}
			// neither process cleans up the backend while the other may still release
			LONGS.getAndAdd(shared, DONE, 1L);
			long doneBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while ((long) LONGS.getVolatile(shared, DONE) < 2 && System.nanoTime() - doneBy < 0) {
				LockSupport.parkNanos(100_000);
			}
		}
		Files.writeString(result, records, StandardCharsets.UTF_8);
		System.exit(0);
	}

}
