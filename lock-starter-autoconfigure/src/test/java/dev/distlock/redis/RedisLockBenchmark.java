package dev.distlock.redis;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.test.TestServers;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A rough throughput check, not a benchmark of record (the JMH module is):
 * acquire+release pairs per second of a MUTEX through {@link LockTemplate} on the Redis
 * backend, beside Redisson's {@code RLock} in the same run, for one thread and for eight
 * threads on one key; the median of three runs each, with the rate of two plain round
 * trips (the ceiling of a lock that needs one to acquire and one to release) for scale.
 * Both use their defaults: a watchdog-renewed lease and a blocking wait. Run with the
 * test class path:
 * {@code java -cp ... dev.distlock.redis.RedisLockBenchmark [seconds per run]}.
 */
public final class RedisLockBenchmark {

	private RedisLockBenchmark() {
	}

	interface Pair {

		void run() throws Exception;

	}

	public static void main(String[] args) throws Exception {
		Duration runTime = Duration.ofSeconds((args.length > 0) ? Long.parseLong(args[0]) : 5);
		String uri = TestServers.redisUri().toString();
		LettuceConnectionFactory factory = RedisTestConnections.standalone(TestServers.redisUri(),
				Duration.ofSeconds(10));
		RedisLockProvider provider = new RedisLockProvider(factory);
		LockTemplate template = new LockTemplate(provider);
		Config config = new Config();
		config.useSingleServer().setAddress(uri);
		RedissonClient redisson = Redisson.create(config);
		String prefix = "bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
		System.out.println("cores: " + Runtime.getRuntime().availableProcessors() + ", load average: "
				+ ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		try {
			// the ceiling of any lock that costs two round trips per pair, in the same
			// conditions
			Pair twoRoundTrips = () -> {
				redis.hasKey(prefix + "ceiling");
				redis.hasKey(prefix + "ceiling");
			};
			measure(twoRoundTrips, 1, Duration.ofSeconds(3));
			double[] ceiling = new double[3];
			double[] ceilingCpu = new double[3];
			for (int run = 0; run < 3; run++) {
				ceiling[run] = measure(twoRoundTrips, 1, runTime);
				ceilingCpu[run] = lastCpuMicrosPerPair;
			}
			System.out.printf("1 thread, two plain round trips (EXISTS, EXISTS): %.0f pairs/s (runs %s), "
					+ "client CPU %.0f us/pair%n", median(ceiling), rounded(ceiling), median(ceilingCpu));
			for (int threads : new int[] { 1, 8 }) {
				String distlockKey = prefix + "distlock-" + threads;
				RLock rlock = redisson.getLock(prefix + "redisson-" + threads);
				LockRequest request = LockRequest.builder(distlockKey).waitTime(Duration.ofSeconds(30)).build();
				Pair distlock = () -> {
					Lease lease = template.acquire(request);
					lease.release();
				};
				Pair raw = () -> {
					rlock.lock();
					rlock.unlock();
				};
				measure(distlock, threads, Duration.ofSeconds(3));
				measure(raw, threads, Duration.ofSeconds(3));
				double[] ours = new double[3];
				double[] theirs = new double[3];
				double[] ourCpu = new double[3];
				double[] theirCpu = new double[3];
				for (int run = 0; run < 3; run++) {
					ours[run] = measure(distlock, threads, runTime);
					ourCpu[run] = lastCpuMicrosPerPair;
					theirs[run] = measure(raw, threads, runTime);
					theirCpu[run] = lastCpuMicrosPerPair;
				}
				System.out.printf(
						"%d thread(s), 1 key: distlock redis %.0f pairs/s (runs %s, client CPU %.0f us/pair),"
								+ " Redisson RLock %.0f pairs/s (runs %s, client CPU %.0f us/pair)%n",
						threads, median(ours), rounded(ours), median(ourCpu), median(theirs), rounded(theirs),
						median(theirCpu));
			}
		}
		finally {
			System.out.println("load average: " + ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
			redisson.shutdown();
			template.close();
			provider.close();
			factory.destroy();
		}
	}

	/** Client CPU time per pair of the last {@link #measure} run, in microseconds. */
	private static double lastCpuMicrosPerPair;

	private static double measure(Pair pair, int threads, Duration runTime) throws InterruptedException {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		long cpuStart = os.getProcessCpuTime();
		LongAdder pairs = new LongAdder();
		CountDownLatch start = new CountDownLatch(1);
		long end = System.nanoTime() + runTime.toNanos();
		List<Thread> workers = new ArrayList<>();
		List<Throwable> failures = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				try {
					start.await();
					while (System.nanoTime() < end) {
						pair.run();
						pairs.increment();
					}
				}
				catch (Throwable ex) {
					synchronized (failures) {
						failures.add(ex);
					}
				}
			});
			worker.start();
			workers.add(worker);
		}
		long begin = System.nanoTime();
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		if (!failures.isEmpty()) {
			throw new IllegalStateException("Benchmark worker failed", failures.get(0));
		}
		double seconds = (System.nanoTime() - begin) / 1e9;
		lastCpuMicrosPerPair = (os.getProcessCpuTime() - cpuStart) / 1e3 / Math.max(1, pairs.sum());
		return pairs.sum() / seconds;
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

	private static String rounded(double[] values) {
		return Arrays.toString(Arrays.stream(values).mapToLong(Math::round).toArray());
	}

}
