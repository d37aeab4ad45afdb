package dev.distlock.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.sample.SampleProperties;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Service;

/**
 * The contention demo: {@code threads} threads perform {@code ops} operations on one key,
 * each a read-modify-write of a counter that nothing but the lock protects, with a
 * {@link Thread#yield()} between the read and the write so that a lock that let two
 * holders in would lose increments. Each operation also checks that it is alone inside
 * and that its fencing token is greater than the previous holder's; any breach counts as
 * a violation. With a working lock the counter ends equal to the operations done and
 * there are no violations.
 * <p>
 * Each thread locks through a {@link LockTemplate} of its own on the application's
 * backend, as a separate instance of the application would: threads sharing one template
 * would queue in the JVM and meet the backend one at a time, whereas here the backend
 * itself decides who goes next, and a backend that let two holders in would show.
 */
@Service
public class ContentionDemo {

	private final LockTemplate locks;

	private final List<LockListener> listeners;

	private final SampleProperties.Demo properties;

	@Autowired
	ContentionDemo(LockTemplate locks, ObjectProvider<LockListener> listeners, SampleProperties properties) {
		this(locks, listeners.orderedStream().toList(), properties.demo());
	}

	ContentionDemo(LockTemplate locks, List<LockListener> listeners, SampleProperties.Demo properties) {
		this.locks = locks;
		this.listeners = listeners;
		this.properties = properties;
	}

	/**
	 * Runs the demo.
	 * @param threads how many threads contend
	 * @param instances how many instances of the application they play (each a
	 * {@code LockTemplate}), at most {@code threads}
	 * @param ops how many operations they do together
	 * @return what happened
	 */
	public DemoResult run(int threads, int instances, int ops) throws InterruptedException {
		if (threads < 1 || ops < 1 || instances < 1 || instances > threads) {
			throw new IllegalArgumentException(
					"threads and ops must be at least 1 and instances between 1 and threads, " + "were threads="
							+ threads + ", instances=" + instances + ", ops=" + ops);
		}
		LockRequest request = LockRequest.builder(this.properties.key())
			.name("demo")
			.waitTime(this.properties.waitTime())
			.build();
		ProtectedCounter counter = new ProtectedCounter();
		AtomicInteger next = new AtomicInteger();
		AtomicInteger failed = new AtomicInteger();
		long[] waits = new long[ops];
		LockProvider<?> provider = this.locks.defaultProvider();
		List<LockTemplate> templates = new ArrayList<>();
		for (int i = 0; i < instances; i++) {
			templates.add(new LockTemplate(List.of(provider), provider.name(), this.locks.settings(), this.listeners));
		}
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		long started = System.nanoTime();
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				LockTemplate instance = templates.get(t % instances);
				workers.add(pool.submit(() -> {
					for (int op = next.getAndIncrement(); op < ops; op = next.getAndIncrement()) {
						long requested = System.nanoTime();
						try (Lease lease = instance.acquire(request)) {
							waits[op] = System.nanoTime() - requested;
							counter.increment(lease.fencingToken());
						}
						catch (LockAcquisitionException ex) {
							waits[op] = -1;
							failed.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get();
			}
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A demo thread failed", ex.getCause());
		}
		finally {
			pool.shutdownNow();
			// closes each one's renewer; the provider is the application's and stays open
			templates.forEach(LockTemplate::close);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		long[] granted = Arrays.stream(waits).filter((wait) -> wait >= 0).sorted().toArray();
		return new DemoResult(this.locks.defaultProvider().name(),
				this.locks.settings().keyPrefix() + this.properties.key(), threads, instances, ops, failed.get(),
				elapsed.toMillis(), ops * 1000.0 / Math.max(1, elapsed.toMillis()), millis(percentile(granted, 50)),
				millis(percentile(granted, 99)), millis(percentile(granted, 100)), counter.value(),
				counter.violations());
	}

	private static long percentile(long[] sorted, int percent) {
		if (sorted.length == 0) {
			return 0;
		}
		int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
		return sorted[Math.max(0, rank - 1)];
	}

	private static double millis(long nanos) {
		return nanos / 1_000_000.0;
	}

	/**
	 * A counter guarded by nothing but the lock: plain fields, a read-modify-write with a
	 * yield in the middle.
	 */
	private static final class ProtectedCounter {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger violations = new AtomicInteger();

		private long value;

		private long lastToken;

		void increment(long token) {
			if (this.inside.incrementAndGet() != 1) {
				this.violations.incrementAndGet(); // another holder is in here too
			}
			if (token <= this.lastToken) {
				this.violations.incrementAndGet(); // fencing tokens must grow from holder
													// to holder
			}
			this.lastToken = token;
			long read = this.value;
			Thread.yield(); // give a second holder, if the lock let one in, the chance to
							// interleave
			this.value = read + 1;
			this.inside.decrementAndGet();
		}

		long value() {
			return this.value;
		}

		int violations() {
			return this.violations.get();
		}

	}

	/**
	 * What a demo run did.
	 *
	 * @param backend the lock provider used
	 * @param key the key, as stored in the backend
	 * @param threads contending threads
	 * @param instances application instances they played, each with its own
	 * {@code LockTemplate}
	 * @param ops operations attempted
	 * @param failed operations that gave up waiting for the lock
	 * @param elapsedMillis wall time of the run
	 * @param opsPerSecond operations per second
	 * @param waitP50Millis median time from request to grant
	 * @param waitP99Millis 99th percentile of it
	 * @param waitMaxMillis the longest
	 * @param counter the counter at the end: {@code ops - failed} unless the lock failed
	 * @param violations times two holders were inside at once or a token did not grow
	 */
	public record DemoResult(String backend, String key, int threads, int instances, int ops, int failed,
			long elapsedMillis, double opsPerSecond, double waitP50Millis, double waitP99Millis, double waitMaxMillis,
			long counter, int violations) {

		/**
		 * Whether the lock held: the counter saw every operation that got the lock and
		 * nothing overlapped.
		 * @return {@code true} for a correct run
		 */
		public boolean correct() {
			return this.violations == 0 && this.counter == this.ops - this.failed;
		}

		/**
		 * The result as a short text table.
		 * @return the table
		 */
		public String table() {
			return String.format(Locale.ROOT, "%-9s %7s %9s %6s %6s %7s %10s %10s %10s %7s %10s%n", "backend",
					"threads", "instances", "ops", "failed", "ops/s", "wait p50", "wait p99", "wait max", "counter",
					"violations")
					+ String.format(Locale.ROOT, "%-9s %7d %9d %6d %6d %7.0f %7.1f ms %7.1f ms %7.1f ms %7d %10d%n",
							this.backend, this.threads, this.instances, this.ops, this.failed, this.opsPerSecond,
							this.waitP50Millis, this.waitP99Millis, this.waitMaxMillis, this.counter, this.violations);
		}

	}

}
